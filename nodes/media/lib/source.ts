import type { ObjectStore } from '../../../kernel/objects/types.ts';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { ARTIFACT_REF_SCHEMA, artifactKeyOf } from './artifacts.ts';

/**
 * How bytes reach a media step: `content`, base64 in the config (usually a template such as
 * "{{download.output.body_base64}}"), at most MAX_INLINE_BYTES decoded; or `artifact`, a
 * reference to an artifact an earlier media step stored ("{{thumb.output.artifact}}"), at most
 * MAX_ARTIFACT_BYTES, read only when it belongs to the run's entity. Exactly one of the two.
 */
export const MAX_INLINE_BYTES = 10 * 1024 * 1024;
export const MAX_ARTIFACT_BYTES = 50 * 1024 * 1024;

const BASE64_MAX_LENGTH = Math.ceil((MAX_INLINE_BYTES * 4) / 3) + 4;
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** config_schema properties `content` and `artifact` (see SOURCE_REQUIRED). */
export const SOURCE_PROPERTIES = {
  content: { type: 'string', minLength: 1, maxLength: BASE64_MAX_LENGTH, description: `The file, base64-encoded, at most ${MAX_INLINE_BYTES} bytes decoded (give this or artifact).`, examples: ['{{trigger.body.file_base64}}'] },
  artifact: { ...ARTIFACT_REF_SCHEMA, description: `An artifact an earlier media step stored ({object_key, ...} or its key), at most ${MAX_ARTIFACT_BYTES} bytes (give this or content).`, examples: ['{{upload.output.artifact}}'] },
} as const;

/** Put on the node's config_schema: without content, artifact is required (so a save names the missing key; both set is refused when the step runs). */
export const SOURCE_REQUIRED = { if: { required: ['content'] }, else: { required: ['artifact'] } } as const;

export interface SourceConfig {
  content?: string;
  artifact?: unknown;
}

/** The bytes a step was given (BAD_CONFIG when neither or both sources are set; FILE_TOO_LARGE over the caps). */
export async function readSource(config: SourceConfig, objects: () => ObjectStore, entityId: string): Promise<Buffer> {
  const given = [config.content !== undefined && 'content', config.artifact !== undefined && 'artifact'].filter(Boolean);
  if (given.length !== 1) throw new NodeStepError(given.length ? 'config.content and config.artifact are both set; give one.' : 'config.content or config.artifact is required.', 'BAD_CONFIG');
  if (config.content !== undefined) {
    if (typeof config.content !== 'string' || !BASE64.test(config.content)) throw new NodeStepError('config.content is not base64.', 'BAD_CONFIG');
    if (config.content.length > BASE64_MAX_LENGTH) throw new NodeStepError(`config.content is over ${MAX_INLINE_BYTES} bytes.`, 'FILE_TOO_LARGE');
    const bytes = Buffer.from(config.content, 'base64');
    if (!bytes.length) throw new NodeStepError('config.content is empty.', 'BAD_INPUT');
    return bytes;
  }
  const key = artifactKeyOf(config.artifact, entityId);
  const store = objects();
  const info = await store.head(key);
  if (!info) throw new NodeStepError(`config.artifact: no artifact ${JSON.stringify(key)} of this workflow's owner.`, 'BAD_INPUT');
  if (info.size > MAX_ARTIFACT_BYTES) throw new NodeStepError(`The artifact is ${info.size} bytes; a media step reads at most ${MAX_ARTIFACT_BYTES}.`, 'FILE_TOO_LARGE');
  const bytes = await store.getBuffer(key);
  if (!bytes) throw new NodeStepError(`config.artifact: no artifact ${JSON.stringify(key)} of this workflow's owner.`, 'BAD_INPUT');
  return bytes;
}
