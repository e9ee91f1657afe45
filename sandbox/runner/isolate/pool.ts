import ivm from 'isolated-vm';

/** Runs an isolate may serve before it is replaced (each in a fresh context). */
const MAX_RUNS_PER_ISOLATE = 200;

interface Idle {
  isolate: ivm.Isolate;
  owner: string;
  runs: number;
}

export interface Lease {
  isolate: ivm.Isolate;
  /** true for an isolate created for this run */
  cold: boolean;
  runs: number;
}

/**
 * Idle isolates kept for the next run of the same owner (an entity): a warm run skips the
 * isolate's creation and only makes a fresh context. An isolate is never handed to another
 * owner, never kept after a run that failed by limit or cancel (the caller disposes it), and
 * never kept past half its heap or MAX_RUNS_PER_ISOLATE runs. At most `size` are idle; the
 * oldest goes first.
 */
export class IsolatePool {
  private idle: Idle[] = [];

  constructor(private readonly size: number, private readonly memoryMb: number) {}

  take(owner: string): Lease {
    const i = this.idle.findIndex((x) => x.owner === owner && x.isolate.isDisposed === false);
    if (i >= 0) {
      const [found] = this.idle.splice(i, 1);
      return { isolate: found.isolate, cold: false, runs: found.runs };
    }
    return { isolate: new ivm.Isolate({ memoryLimit: this.memoryMb }), cold: true, runs: 0 };
  }

  /** Keeps a healthy isolate for its owner's next run, or disposes it. */
  give(owner: string, lease: Lease): void {
    const { isolate } = lease;
    if (isolate.isDisposed) return;
    const runs = lease.runs + 1;
    let healthy = this.size > 0 && runs < MAX_RUNS_PER_ISOLATE;
    if (healthy) {
      const heap = isolate.getHeapStatisticsSync();
      healthy = heap.used_heap_size + heap.externally_allocated_size < (this.memoryMb * 1024 * 1024) / 2;
    }
    if (!healthy) {
      isolate.dispose();
      return;
    }
    this.idle.push({ isolate, owner, runs });
    while (this.idle.length > this.size) this.idle.shift()!.isolate.dispose();
  }

  close(): void {
    for (const x of this.idle.splice(0)) if (!x.isolate.isDisposed) x.isolate.dispose();
  }
}
