import { NodeStepError } from '../../../kernel/nodes/step-error.ts';

/**
 * At most `size` media processes at once in this process; a step waiting for a slot still
 * stops at its deadline or its run's cancel. Many runs transcoding together queue here instead
 * of starting an ffmpeg each and starving the node.
 */
export class Slots {
  private active = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly size: number) {}

  /** Resolves with a release function once a slot is free; rejects with `stopped()` if `signal` aborts or `deadline` (performance.now() ms) passes first. */
  acquire(signal: AbortSignal, deadline: number, stopped: (why: 'abort' | 'timeout') => Error): Promise<() => void> {
    if (this.active < this.size) return Promise.resolve(this.take());
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        this.waiting.delete(grant);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const grant = () => {
        cleanup();
        resolve(this.take());
      };
      const onAbort = () => {
        cleanup();
        reject(stopped('abort'));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(stopped('timeout'));
      }, Math.max(0, deadline - performance.now()));
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.add(grant);
    });
  }

  get inUse(): number {
    return this.active;
  }

  private take(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const next = this.waiting.values().next();
      if (!next.done) next.value();
    };
  }
}

export const interrupted = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new NodeStepError('The step was interrupted.', 'STEP_INTERRUPTED'));
