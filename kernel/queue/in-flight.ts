import { setTimeout as sleep } from 'node:timers/promises';

/** The handler runs currently in progress in this process, so drain can wait for them. */
export class InFlightHandlers {
  private readonly running = new Set<Promise<void>>();

  get size(): number {
    return this.running.size;
  }

  /** Runs the call and tracks it until it settles; the returned promise mirrors it. */
  track<T>(call: () => Promise<T>): Promise<T> {
    const run = Promise.resolve().then(call);
    // The tracked copy never rejects: the caller handles the outcome of `run`.
    const forget = (): void => {
      this.running.delete(settled);
    };
    const settled: Promise<void> = run.then(forget, forget);
    this.running.add(settled);
    return run;
  }

  /** Resolves once nothing is running (including runs started while waiting) or after timeoutMs. */
  async waitIdle(timeoutMs: number): Promise<void> {
    const abort = new AbortController();
    const deadline = sleep(timeoutMs, undefined, { signal: abort.signal, ref: false }).then(
      () => 'timeout' as const,
      () => 'aborted' as const,
    );
    try {
      while (this.running.size > 0) {
        const idle = Promise.all([...this.running]).then(() => 'idle' as const);
        if ((await Promise.race([idle, deadline])) === 'timeout') return;
      }
    } finally {
      abort.abort();
    }
  }
}
