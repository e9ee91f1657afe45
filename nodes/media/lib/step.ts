import type { Context } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { STEP_TIMEOUT_SCHEMA, type DataNodeParams, type StepBudget } from '../../../kernel/nodes/data-node.ts';
import type { ObjectStore } from '../../../kernel/objects/types.ts';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { storeArtifact, type MediaArtifact } from './artifacts.ts';
import { limitsFor, MAX_PROCESS_SECONDS, type ProcessLimits } from './ffmpeg.ts';
import { readSource, type SourceConfig } from './source.ts';

/** Largest result a step also gives inline as base64 (`inline: true`); bigger ones are only artifacts. */
export const MAX_INLINE_OUTPUT_BYTES = 1024 * 1024;

export const INLINE_SCHEMA = {
  type: 'boolean',
  default: false,
  description: `Also give the result's bytes as base64 in output.content (each frame's in frames[].content), at most ${MAX_INLINE_OUTPUT_BYTES} bytes, else the step fails; e.g. for a respond step.`,
  examples: [true],
} as const;

/** config_schema of `timeout` on the media nodes: null still bounds the media work by MAX_PROCESS_SECONDS. */
export const MEDIA_TIMEOUT_SCHEMA = {
  ...STEP_TIMEOUT_SCHEMA,
  description: `Seconds the step may take; past it the work is stopped (ffmpeg killed) and the step fails with STEP_TIMEOUT (null: ${MAX_PROCESS_SECONDS} s).`,
} as const;

/** What a media step works with: its bytes, where its artifacts go, and when it must stop. */
export class MediaStep {
  readonly limits: ProcessLimits;
  readonly artifacts: MediaArtifact[] = [];
  private readonly entityId: string;
  private readonly runId: string;

  constructor(params: DataNodeParams<unknown>, readonly budget: StepBudget, private readonly ctx: Context) {
    this.limits = limitsFor(budget.signal, budget.timeoutSeconds);
    this.entityId = String(params.context.entity_id ?? '');
    this.runId = String(params.context.run_id ?? '');
  }

  objects(): ObjectStore {
    return kernelOf(this.ctx.broker).objects;
  }

  read(config: SourceConfig): Promise<Buffer> {
    return readSource(config, () => this.objects(), this.entityId);
  }

  /**
   * A step run standalone (`POST /workflows/run-node`, the editor: no run, nothing stored) keeps
   * no artifact: its result is given inline instead.
   */
  get standalone(): boolean {
    return !this.runId;
  }

  /** Stores a result and records it among the step's artifacts (listed on its receipt); null when standalone. */
  async store(bytes: Uint8Array, mediaType: string, extension: string): Promise<MediaArtifact | null> {
    this.budget.check();
    if (this.standalone) return null;
    const artifact = await storeArtifact(this.objects(), { entityId: this.entityId, runId: this.runId }, bytes, mediaType, extension);
    this.artifacts.push(artifact);
    return artifact;
  }

  /** `{output, artifacts}` for the engine; `inline` (always when standalone) adds the single result's base64 as output.content. */
  answer(output: Record<string, unknown>, inline?: { enabled: boolean | undefined; bytes: Uint8Array }): { output: Record<string, unknown>; artifacts: MediaArtifact[] } {
    if (inline && (inline.enabled || this.standalone)) {
      if (inline.bytes.length > MAX_INLINE_OUTPUT_BYTES) throw new NodeStepError(`The result is ${inline.bytes.length} bytes; inline gives at most ${MAX_INLINE_OUTPUT_BYTES} (use output.artifact instead).`, 'FILE_TOO_LARGE');
      output = { ...output, content: Buffer.from(inline.bytes).toString('base64') };
    }
    return { output, artifacts: this.artifacts };
  }
}

/** Races work that cannot itself be stopped (a libvips call) with the step's cancel and deadline. */
export async function raceLimits<T>(work: Promise<T>, limits: ProcessLimits): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(limits.signal.reason instanceof Error ? limits.signal.reason : new NodeStepError('The step was interrupted.', 'STEP_INTERRUPTED'));
    if (limits.signal.aborted) return onAbort();
    limits.signal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => reject(new NodeStepError(`The step did not finish within its timeout of ${limits.timeoutSeconds ?? MAX_PROCESS_SECONDS} s.`, 'STEP_TIMEOUT')), Math.max(0, limits.deadline - performance.now()));
  });
  work.catch(() => undefined); // settles after a lost race: nobody listens any more
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) limits.signal.removeEventListener('abort', onAbort);
  }
}
