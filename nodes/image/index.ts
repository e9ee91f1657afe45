import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';
import { MAX_PROCESS_SECONDS } from '../media/lib/ffmpeg.ts';
import { SOURCE_PROPERTIES, SOURCE_REQUIRED, type SourceConfig } from '../media/lib/source.ts';
import { INLINE_SCHEMA, MEDIA_TIMEOUT_SCHEMA, MediaStep, raceLimits } from '../media/lib/step.ts';
import { inspect, MAX_PIXELS, MAX_SIDE, READ_FORMATS, transform, WRITE_FORMATS, writeFormatOf, type Transform, type WriteFormat } from './process.ts';

/**
 * Workflow node type `image`: `metadata` of an image, or `resize`, `crop`, `convert` it with
 * sharp. The image comes as base64 `content` or an earlier step's `artifact`; a result is
 * stored as an artifact (output.artifact), never put in the output unless `inline` asks.
 */
const side = (description: string, example: number) => ({ type: ['integer', 'null'], minimum: 1, maximum: MAX_SIDE, description, examples: [example] });
const offset = (description: string) => ({ type: ['integer', 'null'], minimum: 0, maximum: MAX_SIDE * 10, description, examples: [10] });
// a key an operation requires must be given there, and not as null (its default elsewhere)
const when = (operation: string, required: string[], type: string) => ({
  if: { properties: { operation: { const: operation } }, required: ['operation'] },
  then: { required, properties: Object.fromEntries(required.map((k) => [k, { type }])) },
});

export const nodeType: NodeTypeDeclaration = {
  type: 'image',
  version: 1,
  category: 'media',
  title: 'Image',
  description: `Reads an image's metadata, or resizes, crops or converts it (${READ_FORMATS.join(', ')}); results are stored as artifacts.`,
  config_schema: {
    type: 'object',
    properties: {
      operation: { type: 'string', enum: ['metadata', 'resize', 'crop', 'convert'], description: 'What to do: metadata (no result file), resize (width and/or height), crop (left, top, width, height), convert (format).', examples: ['resize'] },
      ...SOURCE_PROPERTIES,
      width: { ...side('resize: the target width (with height, how they are met is fit); crop: the width of the region.', 320), default: null },
      height: { ...side('resize: the target height; crop: the height of the region.', 240), default: null },
      left: { ...offset('crop: the region\'s left edge, in pixels from the left.'), default: null },
      top: { ...offset('crop: the region\'s top edge, in pixels from the top.'), default: null },
      fit: { type: 'string', enum: ['cover', 'contain', 'fill', 'inside', 'outside'], default: 'cover', description: 'resize with width and height: cover crops to fill, contain letterboxes, fill stretches, inside/outside keep the aspect within/around the box.', examples: ['inside'] },
      without_enlargement: { type: 'boolean', default: false, description: 'resize: never make the image larger than it is.', examples: [true] },
      format: { type: ['string', 'null'], enum: [...WRITE_FORMATS, null], default: null, description: 'The result\'s format (required for convert; else the input\'s own, PNG when that cannot be written).', examples: ['webp'] },
      quality: { type: ['integer', 'null'], minimum: 1, maximum: 100, default: null, description: 'JPEG, WebP, AVIF, TIFF quality (the encoder\'s default when null).', examples: [80] },
      inline: INLINE_SCHEMA,
      timeout: MEDIA_TIMEOUT_SCHEMA,
    },
    required: ['operation'],
    allOf: [SOURCE_REQUIRED, when('crop', ['left', 'top', 'width', 'height'], 'integer'), when('convert', ['format'], 'string')],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'idempotent',
  failures: {
    ...COMMON_STEP_FAILURES,
    STEP_TIMEOUT: `the step ran longer than config.timeout (${MAX_PROCESS_SECONDS} s when null)`,
    BAD_FILE: 'the bytes are not an image this node reads (an SVG, a PDF, a PNG named otherwise is told by its bytes), or a damaged image',
    IMAGE_TOO_LARGE: `the image has over ${MAX_PIXELS} pixels to decode (a pixel bomb)`,
    FILE_TOO_LARGE: 'content or the artifact is over its size cap, or an inline result over 1 MiB',
  },
};

type Config = SourceConfig & {
  operation: 'metadata' | 'resize' | 'crop' | 'convert';
  width?: number | null;
  height?: number | null;
  left?: number | null;
  top?: number | null;
  fit?: 'cover' | 'contain' | 'fill' | 'inside' | 'outside';
  without_enlargement?: boolean;
  format?: WriteFormat | null;
  quality?: number | null;
  inline?: boolean;
};

function transformOf(config: Config, format: WriteFormat): Transform {
  const quality = config.quality ?? undefined;
  if (config.operation === 'crop') return { crop: { left: config.left!, top: config.top!, width: config.width!, height: config.height! }, format, quality };
  if (config.operation === 'resize') {
    if (!config.width && !config.height) throw new NodeStepError('config.width or config.height is required to resize.', 'BAD_CONFIG');
    return { resize: { width: config.width ?? undefined, height: config.height ?? undefined, fit: config.fit ?? 'cover', without_enlargement: config.without_enlargement ?? false }, format, quality };
  }
  return { format, quality };
}

export default defineDataNodeType<Config>(nodeType, async (params, budget, ctx) => {
  const { config } = params;
  const step = new MediaStep(params, budget, ctx);
  const bytes = await step.read(config);
  const facts = await inspect(bytes, config.operation !== 'metadata');
  if (config.operation === 'metadata') return step.answer({ operation: 'metadata', ...facts });
  const format = writeFormatOf(facts, config.format ?? undefined);
  const remaining = (step.limits.deadline - performance.now()) / 1000;
  const written = await raceLimits(transform(bytes, facts, transformOf(config, format), remaining), step.limits);
  const artifact = await step.store(written.bytes, written.media_type, written.extension);
  return step.answer({ operation: config.operation, format: written.format, media_type: written.media_type, width: written.width, height: written.height, size: written.bytes.length, source: { format: facts.format, width: facts.width, height: facts.height }, artifact }, { enabled: config.inline, bytes: written.bytes });
});
