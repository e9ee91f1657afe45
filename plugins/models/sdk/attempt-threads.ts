import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runAttempt, type AttemptOutcome, type AttemptRequest, type TurnEvent } from './attempt.ts';
import { ProviderFailure } from './failure.ts';
import type { ModelTarget } from './language-model.ts';

/** What every thread is started with: what a key's own base_url may reach (MODEL_BASE_URL_ALLOW). */
export interface ThreadData {
  allow: string[];
}

/** An attempt as it crosses to a thread: the fetch is chosen there (the guarded one for a key's own base_url). */
export type ThreadJob = Omit<AttemptRequest, 'target'> & { target: Omit<ModelTarget, 'fetch'> & { guarded: boolean } };

type FailureFields = Pick<ProviderFailure, 'kind' | 'message' | 'providerStatus' | 'retryable' | 'retryAfterMs'>;

export type ToThread = { type: 'run'; id: number; job: ThreadJob } | { type: 'abort'; id: number };
/** a thread posts these in batches (FromThread[]), one per turn of its event loop */
export type FromThread = { type: 'ready' } | { type: 'event'; id: number; event: TurnEvent } | { type: 'done'; id: number; outcome: AttemptOutcome } | { type: 'failed'; id: number; failure: FailureFields };

/** Most threads `auto` starts, whatever the cores. */
const AUTO_MAX = 4;
/**
 * Cores `auto` leaves to the rest: the main thread, the database and the other processes of the
 * machine. On two cores a thread costs more than it gives: it competes with the main thread for
 * the same cores and passing the events adds CPU (bench/README.md, chat-stream).
 */
const AUTO_RESERVED_CORES = 3;

/** MODEL_STREAM_THREADS as a count: `auto` is one per core beyond the first three, at most AUTO_MAX. */
export function threadCount(setting: string, cores: number = availableParallelism()): number {
  if (setting === 'auto') return Math.max(0, Math.min(AUTO_MAX, cores - AUTO_RESERVED_CORES));
  return Number(setting);
}

interface Thread {
  worker: Worker;
  /** attempts given to it that it has not answered (an aborted one until the thread says it ended) */
  busy: number;
  /** its modules are loaded: until then attempts run on the calling thread, never waiting for it */
  ready: boolean;
  /** settles when it is ready, or gone */
  loaded: Promise<void>;
}

interface Attempt {
  thread: Thread;
  emit: (e: TurnEvent) => void;
  resolve: (outcome: AttemptOutcome) => void;
  reject: (err: unknown) => void;
  /** answered already (an abort answers at once; the thread's own answer then only frees it) */
  settled: boolean;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * The model stream threads of a node: each provider attempt (the HTTP call and the SDK's parsing
 * of every streamed chunk, its costliest CPU per token) runs on the least busy of `size` worker
 * threads, and only its events (text deltas, tool calls) come back to the main thread, so many
 * streams at once do not queue behind each other's parsing there. The threads start at the first
 * attempt, which, like any other before one has loaded the SDK, runs on the calling thread
 * (no call waits for a thread to start). With `size` 0 every attempt runs there. A thread that dies fails its attempts as a dropped connection would
 * (retryable while nothing was streamed) and is replaced at the next attempt.
 */
export class AttemptThreads {
  private readonly threads: Thread[] = [];
  private readonly attempts = new Map<number, Attempt>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly data: ThreadData,
    private readonly logger: { warn(obj: object, message: string): void },
  ) {}

  run(req: AttemptRequest, guarded: boolean, signal: AbortSignal, emit: (e: TurnEvent) => void): Promise<AttemptOutcome> {
    const thread = this.size === 0 || this.closed ? undefined : this.leastBusy();
    if (!thread) return runAttempt(req, signal, emit);
    signal.throwIfAborted();
    const { fetch: _inThisThread, ...target } = req.target;
    const job: ThreadJob = { ...req, target: { ...target, guarded } };
    const id = this.nextId++;
    return new Promise<AttemptOutcome>((resolve, reject) => {
      const attempt: Attempt = {
        thread, emit, resolve, reject, signal, settled: false,
        onAbort: () => {
          thread.worker.postMessage({ type: 'abort', id } satisfies ToThread);
          this.settle(attempt, () => reject(signal.reason));
        },
      };
      this.attempts.set(id, attempt);
      thread.busy++;
      signal.addEventListener('abort', attempt.onAbort, { once: true });
      thread.worker.postMessage({ type: 'run', id, job } satisfies ToThread);
    });
  }

  /** Starts the threads, resolving once every one has loaded (a warm-up before load; tests). */
  async warm(): Promise<void> {
    if (this.size === 0 || this.closed) return;
    while (this.threads.length < this.size) this.start();
    await Promise.all(this.threads.map((t) => t.loaded));
  }

  /** Ends every thread; attempts still running fail, later ones run on the calling thread. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }

  /** the ready thread with the fewest attempts; none while no thread is ready (the missing ones start) */
  private leastBusy(): Thread | undefined {
    while (this.threads.length < this.size) this.start();
    let best: Thread | undefined;
    for (const t of this.threads) if (t.ready && (!best || t.busy < best.busy)) best = t;
    return best;
  }

  private start(): Thread {
    const url = new URL('./attempt-worker.ts', import.meta.url);
    url.search = ''; // a hot-loaded package's modules carry a loader query; the thread loads its own copy
    let loaded!: () => void;
    const thread: Thread = { worker: new Worker(url, { workerData: this.data }), busy: 0, ready: false, loaded: new Promise<void>((resolve) => (loaded = resolve)) };
    thread.worker.unref();
    thread.worker.on('message', (batch: FromThread[]) => {
      for (const m of batch) {
        if (m.type !== 'ready') this.answer(m);
        else {
          thread.ready = true;
          loaded();
        }
      }
    });
    thread.worker.once('exit', () => loaded());
    thread.worker.on('error', (err: Error) => this.lost(thread, err));
    thread.worker.on('exit', (code) => this.lost(thread, new Error(`exited with code ${code}`)));
    this.threads.push(thread);
    return thread;
  }

  private answer(m: Exclude<FromThread, { type: 'ready' }>): void {
    const attempt = this.attempts.get(m.id);
    if (!attempt) return;
    if (m.type === 'event') {
      if (!attempt.settled) attempt.emit(m.event);
      return;
    }
    this.attempts.delete(m.id);
    attempt.thread.busy--;
    if (m.type === 'done') this.settle(attempt, () => attempt.resolve(m.outcome));
    else this.settle(attempt, () => attempt.reject(new ProviderFailure(m.failure.kind, m.failure.message, m.failure)));
  }

  private settle(attempt: Attempt, answer: () => void): void {
    if (attempt.settled) return;
    attempt.settled = true;
    attempt.signal.removeEventListener('abort', attempt.onAbort);
    answer();
  }

  /** A thread that failed or exited: its attempts fail as a dropped connection, the next attempt starts another. */
  private lost(thread: Thread, err: Error): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    if (!this.closed) this.logger.warn({ err }, 'a model stream thread stopped; its calls fail as dropped connections');
    for (const [id, attempt] of this.attempts) {
      if (attempt.thread !== thread) continue;
      this.attempts.delete(id);
      this.settle(attempt, () => attempt.reject(new ProviderFailure('provider', 'The model stream thread stopped during the call.', { retryable: true })));
    }
  }
}
