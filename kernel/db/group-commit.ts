/**
 * Group commit: statements submitted while `maxInFlight` batches are already at the database
 * wait and go together in the next batch (one statement, one transaction, one WAL flush),
 * instead of one round trip each. Nothing waits on purpose: a submission with a free slot goes
 * at once, alone, so a quiet system pays no latency; under load, batches grow by themselves.
 * A batch the database refused (`rolledBack(err)`: the statement failed, so nothing of it
 * happened) is retried item by item, so one bad item fails only its own submitter; any other
 * failure (a connection lost mid-commit: the outcome is unknown) fails the whole batch, because
 * repeating a commit that did land would apply it twice.
 * With `keyOf`, a batch holds at most one item per key: the next item of a key already in the
 * batch ends it, and goes (with what follows it) in a later batch, after this one has committed.
 */
/** One statement of a group commit, as `onFlush` hears of it. */
export interface FlushStats {
  /** items in the statement */
  size: number;
  /** how long its oldest item waited for a free slot (ms) */
  waitedMs: number;
  /** the statement's round trip, from sending to its answer (ms) */
  flushMs: number;
  /** false when the statement failed (its items were then retried alone, or failed) */
  ok: boolean;
}

export class GroupCommit<T, R> {
  private readonly queue: { item: T; at: number; resolve(r: R): void; reject(e: unknown): void }[] = [];
  private inFlight = 0;

  constructor(
    /** writes the items in one statement and answers their results in order */
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly opts: { maxInFlight: number; maxBatch: number; rolledBack(err: unknown): boolean; keyOf?(item: T): string; onFlush?(stats: FlushStats): void },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, at: performance.now(), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchLength());
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** how many queued items the next batch takes: up to maxBatch, and stopping at a repeated key */
  private batchLength(): number {
    const max = Math.min(this.opts.maxBatch, this.queue.length);
    const keyOf = this.opts.keyOf;
    if (!keyOf || max < 2) return max;
    const keys = new Set<string>();
    for (let i = 0; i < max; i++) {
      const key = keyOf(this.queue[i].item);
      if (keys.has(key)) return i;
      keys.add(key);
    }
    return max;
  }

  private async flush(batch: GroupCommit<T, R>['queue']): Promise<void> {
    const sent = performance.now();
    try {
      const results = await this.write(batch.map((b) => b.item));
      this.opts.onFlush?.({ size: batch.length, waitedMs: sent - batch[0].at, flushMs: performance.now() - sent, ok: true });
      batch.forEach((b, i) => b.resolve(results[i]));
    } catch (err) {
      this.opts.onFlush?.({ size: batch.length, waitedMs: sent - batch[0].at, flushMs: performance.now() - sent, ok: false });
      if (batch.length === 1 || !this.opts.rolledBack(err)) {
        for (const b of batch) b.reject(err);
        return;
      }
      await Promise.all(batch.map((b) => this.write([b.item]).then((results) => b.resolve(results[0]), b.reject)));
    }
  }
}
