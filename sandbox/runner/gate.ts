import { SANDBOX_ERR } from './errors.ts';
import { MAX_WAITING_RUNS } from './limits.ts';

/**
 * At most `slots` runs at once on this node; later ones wait in arrival order, up to
 * MAX_WAITING_RUNS, and beyond that are refused (SANDBOX_ERR_BUSY, retryable). A waiting run
 * whose signal aborts leaves the line.
 */
export class RunGate {
  private running = 0;
  private readonly waiting: { start(): void; signal: AbortSignal }[] = [];

  constructor(private readonly slots: number) {}

  async enter(signal: AbortSignal): Promise<void> {
    if (this.running < this.slots && this.waiting.length === 0) {
      this.running++;
      return;
    }
    if (this.waiting.length >= MAX_WAITING_RUNS) throw SANDBOX_ERR.BUSY(`${this.waiting.length} sandbox runs are already waiting on this node; try again shortly.`);
    await new Promise<void>((resolve, reject) => {
      const entry = { start: resolve, signal };
      this.waiting.push(entry);
      signal.addEventListener('abort', () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          reject(signal.reason);
        }
      }, { once: true });
    });
  }

  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}
