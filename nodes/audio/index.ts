import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType } from '../../kernel/nodes/data-node.ts';
import { AUDIO_FORMATS } from '../media/lib/av-ops.ts';
import { AV_FAILURES, runAvStep, TRIM_PROPERTIES, type AvConfig } from '../media/lib/av-step.ts';
import { SOURCE_PROPERTIES, SOURCE_REQUIRED } from '../media/lib/source.ts';
import { INLINE_SCHEMA, MEDIA_TIMEOUT_SCHEMA } from '../media/lib/step.ts';

/**
 * Workflow node type `audio`: `metadata` of an audio (or video) file with ffprobe, or
 * `transcode` / `trim` its first audio stream with ffmpeg. The file comes as base64 `content`
 * or an earlier step's `artifact`; a result is stored as an artifact (output.artifact).
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'audio',
  version: 1,
  category: 'media',
  title: 'Audio',
  description: `Reads an audio file's metadata, or transcodes or trims it (writes ${Object.keys(AUDIO_FORMATS).join(', ')}); results are stored as artifacts.`,
  config_schema: {
    type: 'object',
    properties: {
      operation: { type: 'string', enum: ['metadata', 'transcode', 'trim'], description: 'What to do: metadata (duration, streams; no result file), transcode (to format), trim (start, duration).', examples: ['transcode'] },
      ...SOURCE_PROPERTIES,
      format: { type: ['string', 'null'], enum: [...Object.keys(AUDIO_FORMATS), null], default: null, description: "The result's format (required for transcode; trim keeps the input's own where it can be written, else wav).", examples: ['mp3'] },
      ...TRIM_PROPERTIES,
      bitrate_kbps: { type: ['integer', 'null'], minimum: 8, maximum: 512, default: null, description: 'Target bitrate of lossy formats, in kbit/s (the encoder\'s default when null).', examples: [128] },
      sample_rate: { type: ['integer', 'null'], enum: [8000, 16000, 22050, 24000, 32000, 44100, 48000, null], default: null, description: 'Resample to this rate in Hz (the input\'s when null).', examples: [16000] },
      channels: { type: ['integer', 'null'], minimum: 1, maximum: 2, default: null, description: 'Mix down or up to 1 (mono) or 2 (stereo) channels (the input\'s when null).', examples: [1] },
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

type Config = AvConfig & { bitrate_kbps?: number | null; sample_rate?: number | null; channels?: number | null };

export default defineDataNodeType<Config>(
  nodeType,
  runAvStep<Config>('audio', (c) => ({ bitrate_kbps: c.bitrate_kbps ?? undefined, sample_rate: c.sample_rate ?? undefined, channels: c.channels ?? undefined })),
);
