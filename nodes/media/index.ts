import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';
import { artifactKeyOf, type MediaArtifact } from './lib/artifacts.ts';
import { prepareInput, probe } from './lib/av.ts';
import { withTempDir } from './lib/ffmpeg.ts';
import { MEDIA_KINDS, sniffKind, type MediaKind, type Sniffed } from './lib/kinds.ts';
import { SOURCE_PROPERTIES, SOURCE_REQUIRED, type SourceConfig } from './lib/source.ts';
import { MEDIA_TIMEOUT_SCHEMA, MediaStep } from './lib/step.ts';

/**
 * Workflow node type `media`: tells what a file is from its bytes (file-type's signatures, then
 * ffprobe for containers that hold either sound or pictures), keeps it as an artifact of the run
 * (so later image, audio and video steps take `{{<step>.output.artifact}}`), and follows the
 * branch of its kind. A kind without a branch ends that path.
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };

export const nodeType: NodeTypeDeclaration = {
  type: 'media',
  version: 1,
  category: 'media',
  title: 'Media',
  description: 'Tells what a file is by its bytes (image, audio, video, document, archive, text, other), keeps it as an artifact and follows the branch of its kind.',
  config_schema: {
    type: 'object',
    properties: {
      ...SOURCE_PROPERTIES,
      branches: {
        type: 'object',
        properties: Object.fromEntries(MEDIA_KINDS.map((k) => [k, target])),
        additionalProperties: false,
        default: {},
        description: `Step ids to follow by kind (${MEDIA_KINDS.join(', ')}); each also in next. A kind without one ends the path.`,
        examples: [{ image: 'thumbnail', video: 'poster', other: 'reject' }],
      },
      timeout: MEDIA_TIMEOUT_SCHEMA,
    },
    allOf: [SOURCE_REQUIRED],
    additionalProperties: false,
  },
  outputs: [...MEDIA_KINDS],
  branch_targets: MEDIA_KINDS.map((k) => `branches.${k}`),
  uncertain_effect: false,
  side_effect: 'idempotent',
  failures: {
    ...COMMON_STEP_FAILURES,
    FILE_TOO_LARGE: 'content or the artifact is over its size cap',
  },
};

type Config = SourceConfig & { branches?: Partial<Record<MediaKind, string | string[]>> };

/** Containers holding either sound or pictures: ffprobe says which by their streams (a webm of speech is audio). */
const EITHER = new Set(['mp4', 'm4a', 'm4v', 'mov', '3gp', '3g2', 'webm', 'mkv', 'mka', 'ogg', 'oga', 'ogv', 'asf']);

/** The reference of an artifact the step was given (already stored: its key names its SHA-256). */
function storedRef(key: string, sniffed: Sniffed, size: number): MediaArtifact {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return { object_key: key, media_type: sniffed.media_type, size, sha256: name.slice(0, name.indexOf('.')), extension: name.slice(name.indexOf('.') + 1) };
}

export default defineDataNodeType<Config>(nodeType, async (params, budget, ctx) => {
  const { config } = params;
  const step = new MediaStep(params, budget, ctx);
  const bytes = await step.read(config);
  const sniffed: Sniffed = await sniffKind(bytes);
  let kind = sniffed.kind;
  if ((kind === 'audio' || kind === 'video') && EITHER.has(sniffed.extension)) {
    const facts = await withTempDir(async (dir) => probe(await prepareInput(bytes, dir), dir, step.limits)).catch((err: unknown) => {
      if (err instanceof NodeStepError && err.type === 'BAD_FILE') return null; // damaged: its signature's kind stands
      throw err;
    });
    if (facts) kind = facts.has_video ? 'video' : facts.has_audio ? 'audio' : kind;
  }
  budget.check();
  const artifact =
    config.content !== undefined
      ? await step.store(bytes, sniffed.media_type, sniffed.extension)
      : storedRef(artifactKeyOf(config.artifact, String(params.context.entity_id ?? '')), sniffed, bytes.length);
  const chosen = config.branches?.[kind];
  const answer = step.answer({ kind, media_type: sniffed.media_type, extension: sniffed.extension, size: bytes.length, ...(sniffed.playlist ? { playlist: sniffed.playlist } : {}), artifact });
  return { ...answer, next: chosen === undefined ? [] : [chosen].flat() };
});
