import type { Journal } from './executor.ts';
import type { RunStore } from '../store/runs.ts';
import type { Commit, NewRun, ReceiptRow, RunEvent } from '../store/run-types.ts';

/** Every commit goes to the database at once (one statement), guarded by this worker's lease. */
export class DbJournal implements Journal {
  constructor(private readonly store: RunStore, private readonly run: { id: string; entity_id: string }, private readonly owner: string) {}

  commit(c: Commit): Promise<number | undefined> {
    return this.store.commit(this.run, this.owner, c);
  }
}

/** A commit that fails or pauses the run: the run is written in full before anyone hears of it. */
function mustWrite(c: Commit): boolean {
  return !!c.finish && c.finish.status !== 'completed';
}

/**
 * Errors-only persistence (WORKFLOW_RUN_PERSISTENCE=errors) for inline runs: commits stay in
 * memory, and a run that completes leaves no row. A run that fails or pauses is written in
 * full before anyone hears of it, and `promote()` writes a run that must go on in the
 * background; from then on every commit goes to the database as usual.
 */
export class DeferredJournal implements Journal {
  private readonly receipts = new Map<string, ReceiptRow>();
  private readonly events: RunEvent[] = [];
  private db?: DbJournal;
  private chain: Promise<unknown> = Promise.resolve();
  /** writes queued on the chain and not yet settled */
  private pending = 0;

  constructor(private readonly store: RunStore, private readonly run: NewRun, private readonly owner: string, private readonly leaseSeconds: number) {}

  private async flush(): Promise<void> {
    if (this.db) return;
    await this.store.create(this.run, { status: 'running', leaseOwner: this.owner, leaseSeconds: this.leaseSeconds, receipts: [...this.receipts.values()], events: this.events });
    this.db = new DbJournal(this.store, this.run, this.owner);
  }

  /** Writes the run so far; later commits go straight to the database. */
  promote(): Promise<void> {
    this.pending++;
    const next = this.chain.then(() => this.flush());
    this.chain = next.catch(() => undefined).finally(() => this.pending--);
    return next;
  }

  commit(c: Commit): Promise<number | undefined> {
    // the common case, nothing written yet or under way: keep it in memory at once
    if (!this.db && this.pending === 0 && !mustWrite(c)) {
      this.keep(c);
      return Promise.resolve(this.events.length);
    }
    this.pending++;
    const next = this.chain.then(async () => {
      if (this.db) return this.db.commit(c);
      if (mustWrite(c)) {
        await this.flush();
        return this.db!.commit(c);
      }
      this.keep(c);
      return this.events.length;
    });
    this.chain = next.catch(() => undefined).finally(() => this.pending--);
    return next;
  }

  private keep(c: Commit): void {
    for (const r of c.receipts) this.receipts.set(r.step_id, r);
    this.events.push(...c.events);
  }
}
