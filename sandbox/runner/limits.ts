import type { Config } from '../../config/load.ts';

/** A sandbox node's limits, read once from its settings (SANDBOX_*). */
export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
  maxInputBytes: number;
  maxOutputBytes: number;
  concurrency: number;
  warmIsolates: number;
}

/** Runs allowed to wait for a free slot before new ones are refused (SANDBOX_ERR_BUSY). */
export const MAX_WAITING_RUNS = 100;
/** Console lines kept per run, and characters per line. */
export const MAX_LOG_LINES = 100;
export const MAX_LOG_LINE_CHARS = 1000;

export function limitsOf(env: Config['env']): SandboxLimits {
  return {
    timeoutMs: env.SANDBOX_TIMEOUT_SECONDS * 1000,
    memoryMb: env.SANDBOX_MEMORY_MB,
    maxInputBytes: env.SANDBOX_MAX_INPUT_BYTES,
    maxOutputBytes: env.SANDBOX_MAX_OUTPUT_BYTES,
    concurrency: env.SANDBOX_CONCURRENCY,
    warmIsolates: env.SANDBOX_WARM_ISOLATES,
  };
}

/** The time a run gets: the node's limit, lowered by the caller's (never raised). */
export function runTimeoutMs(limits: SandboxLimits, requested: number | undefined): number {
  return typeof requested === 'number' && requested > 0 ? Math.min(requested, limits.timeoutMs) : limits.timeoutMs;
}
