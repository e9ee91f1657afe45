import type { Context } from 'moleculer';
import type { DataNodeParams, StepBudget } from '../../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { prepareInput, probe, type AvFacts, type AvInput } from './av.ts';
import { encode, sameFormat, checkWindow, type AvOptions } from './av-ops.ts';
import { MAX_PROCESS_SECONDS, withTempDir } from './ffmpeg.ts';
import type { SourceConfig } from './source.ts';
import { MediaStep } from './step.ts';

/** The step of an `audio` or `video` node: its bytes in a private temp dir, probed, then the operation. */

export const TRIM_PROPERTIES = {
  start: { type: 'number', minimum: 0, maximum: 86400, default: 0, description: 'trim: where the kept part starts, in seconds.', examples: [1.5] },
  duration: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 86400, default: null, description: 'trim: how many seconds to keep (null: to the end).', examples: [10] },
} as const;

export const AV_FAILURES = {
  STEP_TIMEOUT: `the step ran longer than config.timeout (${MAX_PROCESS_SECONDS} s when null); ffmpeg is killed`,
  BAD_FILE: 'the bytes are not an audio or video container this node reads (told by its bytes), a playlist or concat list (refused: it would open other files or URLs), or a file ffmpeg cannot decode (its reason)',
  FILE_TOO_LARGE: 'content or the artifact is over its size cap, the result over 50 MiB, or an inline result over 1 MiB',
  MEDIA_TOOL_MISSING: 'ffmpeg/ffprobe is not installed on the node that ran the step',
} as const;

export type AvConfig = SourceConfig & { operation: string; format?: string | null; start?: number; duration?: number | null; inline?: boolean };

export interface AvWork {
  step: MediaStep;
  input: AvInput;
  facts: AvFacts;
  dir: string;
}

/** Runs `operation` for a media node of `kind`: metadata and trim/transcode here; anything else by `other`. */
export function runAvStep<C extends AvConfig>(kind: 'audio' | 'video', options: (config: C) => Omit<AvOptions, 'format' | 'start' | 'duration'>, other?: (work: AvWork, config: C) => Promise<unknown>) {
  return async (params: DataNodeParams<C>, budget: StepBudget, ctx: Context): Promise<unknown> => {
    const { config } = params;
    const step = new MediaStep(params as DataNodeParams<unknown>, budget, ctx);
    const bytes = await step.read(config);
    return withTempDir(async (dir) => {
      const input = await prepareInput(bytes, dir);
      const facts = await probe(input, dir, step.limits);
      if (config.operation === 'metadata') return step.answer({ operation: 'metadata', ...facts });
      if (config.operation === 'transcode' || config.operation === 'trim') {
        const trim = config.operation === 'trim';
        if (!config.format && !trim) throw new NodeStepError('config.format is required to transcode.', 'BAD_CONFIG');
        const start = trim ? (config.start ?? 0) : 0;
        const duration = trim ? (config.duration ?? undefined) : undefined;
        if (trim) checkWindow(facts, start, duration);
        const o: AvOptions = { ...options(config), format: config.format ?? sameFormat(kind, input), start, duration };
        const { bytes: out, format } = await encode(kind, input, facts, o, dir, step.limits);
        const artifact = await step.store(out, format.media_type, format.extension);
        const written = await probe(await prepareInput(out, dir, 'written'), dir, step.limits).catch(() => null);
        return step.answer({ operation: config.operation, format: o.format, media_type: format.media_type, size: out.length, duration: written?.duration ?? null, streams: written?.streams ?? [], source: { container: facts.container, duration: facts.duration }, artifact }, { enabled: config.inline, bytes: out });
      }
      if (other) return other({ step, input, facts, dir }, config);
      throw new NodeStepError(`config.operation ${JSON.stringify(config.operation)} is not known.`, 'BAD_CONFIG');
    });
  };
}
