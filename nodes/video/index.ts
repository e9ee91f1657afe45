import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType } from '../../kernel/nodes/data-node.ts';
import { VIDEO_FORMATS } from '../media/lib/av-ops.ts';
import { AV_FAILURES, runAvStep, TRIM_PROPERTIES, type AvConfig } from '../media/lib/av-step.ts';
import { SOURCE_PROPERTIES, SOURCE_REQUIRED } from '../media/lib/source.ts';
import { INLINE_SCHEMA, MEDIA_TIMEOUT_SCHEMA } from '../media/lib/step.ts';
import { MAX_FRAMES, takeFrames, type FramesConfig } from './frames.ts';

/**
 * Workflow node type `video`: `metadata` of a video with ffprobe, `transcode` or `trim` it, or
 * take still `frames` (image artifacts) with ffmpeg. The file comes as base64 `content` or an
 * earlier step's `artifact`; results are stored as artifacts (output.artifact, output.frames).
 */
const dimension = (what: string, example: number) => ({ type: ['integer', 'null'], minimum: 16, maximum: 3840, default: null, description: `transcode, trim, frames: scale to this ${what} in pixels (the other side keeps the aspect when not given).`, examples: [example] });

export const nodeType: NodeTypeDeclaration = {
  type: 'video',
  version: 1,
  category: 'media',
  title: 'Video',
  description: `Reads a video's metadata, transcodes or trims it (writes ${Object.keys(VIDEO_FORMATS).join(', ')}), or takes still frames; results are stored as artifacts.`,
  config_schema: {
    type: 'object',
    properties: {
      operation: { type: 'string', enum: ['metadata', 'transcode', 'trim', 'frames'], description: 'What to do: metadata (no result file), transcode (to format), trim (start, duration), frames (times or count).', examples: ['frames'] },
      ...SOURCE_PROPERTIES,
      format: { type: ['string', 'null'], enum: [...Object.keys(VIDEO_FORMATS), null], default: null, description: "The result's format (required for transcode; trim keeps the input's own where it can be written, else mp4).", examples: ['mp4'] },
      ...TRIM_PROPERTIES,
      width: dimension('width', 640),
      height: { ...dimension('height', 360), description: 'transcode, trim: scale to this height in pixels (the other side keeps the aspect when not given).' },
      fps: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 120, default: null, description: 'transcode, trim: frames per second of the result (the input\'s when null).', examples: [15] },
      mute: { type: 'boolean', default: false, description: 'transcode, trim: drop the audio.', examples: [true] },
      times: { type: ['array', 'null'], items: { type: 'number', minimum: 0, maximum: 86400 }, minItems: 1, maxItems: MAX_FRAMES, default: null, description: `frames: the moments (seconds) to take, at most ${MAX_FRAMES}.`, examples: [[0, 2.5]] },
      count: { type: 'integer', minimum: 1, maximum: MAX_FRAMES, default: 1, description: 'frames: without times, this many frames spread evenly over the video.', examples: [4] },
      frame_format: { type: 'string', enum: ['png', 'jpeg'], default: 'png', description: 'frames: the image format of each frame.', examples: ['jpeg'] },
      inline: INLINE_SCHEMA,
      timeout: MEDIA_TIMEOUT_SCHEMA,
    },
    required: ['operation'],
    allOf: [SOURCE_REQUIRED, { if: { properties: { operation: { const: 'transcode' } }, required: ['operation'] }, then: { required: ['format'], properties: { format: { type: 'string' } } } }],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'idempotent',
  failures: { ...COMMON_STEP_FAILURES, ...AV_FAILURES },
};

type Config = AvConfig & FramesConfig & { height?: number | null; fps?: number | null; mute?: boolean };

export default defineDataNodeType<Config>(
  nodeType,
  runAvStep<Config>('video', (c) => ({ width: c.width ?? undefined, height: c.height ?? undefined, fps: c.fps ?? undefined, mute: c.mute ?? false }), (work, config) => takeFrames(work, config)),
);
