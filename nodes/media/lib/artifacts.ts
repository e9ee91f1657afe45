import { createHash } from 'node:crypto';
import type { ObjectStore } from '../../../kernel/objects/types.ts';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';

/**
 * Bytes a media step makes are kept in the kernel object store as *artifacts*; the step's output
 * holds only a reference (`MediaArtifact`), so outputs stay JSON-sized. Keys are scoped by the
 * run's entity and named by the content's SHA-256 under the run
 * (`workflows/artifacts/<entity_id>/<run_id>/<sha256>.<ext>`): a repeated step writes the same
 * bytes to the same key (the effect is idempotent), and a run's artifacts share one prefix.
 */
export interface MediaArtifact {
  object_key: string;
  media_type: string;
  size: number;
  sha256: string;
  /** extension of the stored file (png, mp3, ...) */
  extension: string;
}

export const ARTIFACT_ROOT = 'workflows/artifacts';

/** JSON Schema of an artifact reference a step takes (the `artifact` a media step answered, or its key). */
export const ARTIFACT_REF_SCHEMA = {
  oneOf: [
    { type: 'string', minLength: 1, maxLength: 400 },
    { type: 'object', properties: { object_key: { type: 'string', minLength: 1, maxLength: 400 } }, required: ['object_key'] },
  ],
} as const;

export function entityPrefix(entityId: string): string {
  return `${ARTIFACT_ROOT}/${entityId}/`;
}

const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;

/** The key of an artifact given to a step, or a BAD_INPUT failure when it is not one of the run's entity (the same answer whether or not it exists). */
export function artifactKeyOf(ref: unknown, entityId: string): string {
  const key = typeof ref === 'string' ? ref : ref && typeof ref === 'object' ? (ref as { object_key?: unknown }).object_key : undefined;
  if (typeof key !== 'string' || !key) throw new NodeStepError('config.artifact must be an artifact reference ({object_key}) or its key.', 'BAD_CONFIG');
  const prefix = entityPrefix(entityId);
  const rest = key.startsWith(prefix) ? key.slice(prefix.length).split('/') : [];
  const valid = rest.length === 2 && SAFE_SEGMENT.test(rest[0]) && /^[a-f0-9]{64}\.[a-z0-9]{1,10}$/.test(rest[1]);
  if (!valid) throw new NodeStepError(`config.artifact: no artifact ${JSON.stringify(key.slice(0, 200))} of this workflow's owner.`, 'BAD_INPUT');
  return key;
}

/** Stores `bytes` as an artifact of the run (content-addressed) and answers its reference. */
export async function storeArtifact(objects: ObjectStore, scope: { entityId: string; runId: string }, bytes: Uint8Array, mediaType: string, extension: string): Promise<MediaArtifact> {
  if (!SAFE_SEGMENT.test(scope.entityId) || !SAFE_SEGMENT.test(scope.runId)) throw new NodeStepError('The step has no run context to keep an artifact under.', 'BAD_INPUT');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const ext = /^[a-z0-9]{1,10}$/.test(extension) ? extension : 'bin';
  const object_key = `${entityPrefix(scope.entityId)}${scope.runId}/${sha256}.${ext}`;
  const existing = await objects.head(object_key);
  if (!existing || existing.size !== bytes.length) await objects.put(object_key, bytes, { contentType: mediaType, metadata: { sha256 } });
  return { object_key, media_type: mediaType, size: bytes.length, sha256, extension: ext };
}
