import type { PGlite } from '@electric-sql/pglite';

/**
 * Shares PGlite's single backend session between several wire connections.
 *
 * A connection that starts a protocol exchange keeps the session until the
 * backend answers ReadyForQuery with status 'I' (idle): that covers a whole
 * extended-protocol batch (Parse/Bind/Describe/Execute/Sync) as well as an
 * explicit transaction. pglite-socket 0.2's own queue only pins a connection
 * while a transaction is open, so two connections' batches interleave when a
 * batch arrives in several TCP chunks and one connection binds the other's
 * unnamed statement (electric-sql/pglite issue #1046); reproduced here with
 * sequelize and 300 kB bind parameters.
 *
 * Consequence for callers: while one connection is inside a transaction every
 * other connection waits, so code must never await a query on another
 * connection while holding a transaction open.
 */

const READY_FOR_QUERY = 0x5a; // 'Z'
const STATUS_IDLE = 0x49; // 'I'
const STATUS_IN_TRANSACTION = 0x54; // 'T'
const STATUS_FAILED_TRANSACTION = 0x45; // 'E'
const READY_FOR_QUERY_LENGTH = 6;

const RELEASE = Symbol('release connection');

interface Job {
  connectionId: number;
  message: Uint8Array | typeof RELEASE;
  onData: (data: Uint8Array) => void;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class PgliteSessionScheduler {
  private readonly db: PGlite;
  private queue: Job[] = [];
  private owner: number | null = null;
  private pumping = false;
  private idleWaiters: Array<() => void> = [];

  constructor(db: PGlite) {
    this.db = db;
  }

  /** Runs one frontend message for a connection, streaming the backend's reply to onData. */
  submit(connectionId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ connectionId, message, onData, resolve, reject });
      void this.pump();
    });
  }

  /**
   * Forgets a closed connection: drops its queued messages and, if it held
   * the session mid-batch or mid-transaction, ends the batch and rolls back.
   * Queued behind the connection's running message, so the check sees the
   * state that message left.
   */
  release(connectionId: number): Promise<void> {
    const dropped = this.queue.filter((job) => job.connectionId === connectionId);
    this.queue = this.queue.filter((job) => job.connectionId !== connectionId);
    for (const job of dropped) job.reject(new Error('connection closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ connectionId, message: RELEASE, onData: () => {}, resolve, reject });
      void this.pump();
    });
  }

  /** Resolves once no message is queued or running (used before closing PGlite). */
  whenIdle(): Promise<void> {
    if (!this.pumping && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private nextJob(): Job | undefined {
    if (this.owner === null) return this.queue.shift();
    const index = this.queue.findIndex((job) => job.connectionId === this.owner);
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let job = this.nextJob(); job; job = this.nextJob()) {
        await this.run(job);
      }
    } finally {
      this.pumping = false;
      if (this.queue.length === 0) this.notifyIdle();
    }
  }

  private async run(job: Job): Promise<void> {
    try {
      if (job.message === RELEASE) {
        await this.resetSessionOf(job.connectionId);
      } else {
        const status = await this.execute(job.message, job.onData);
        this.owner = status === STATUS_IDLE ? null : job.connectionId;
      }
    } catch (error) {
      this.owner = null;
      job.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    job.resolve();
  }

  private async resetSessionOf(connectionId: number): Promise<void> {
    if (this.owner !== connectionId) return;
    this.owner = null;
    const status = await this.execute(syncMessage(), () => {});
    if (status === STATUS_IN_TRANSACTION || status === STATUS_FAILED_TRANSACTION) {
      await this.execute(simpleQueryMessage('ROLLBACK'), () => {});
    }
  }

  /** Runs one message; returns the ReadyForQuery status byte it ended with, if any. */
  private async execute(message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number | null> {
    const tail = new ReplyTail();
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(message, {
        onRawData: (data) => {
          tail.push(data);
          onData(data);
        },
      }),
    );
    return tail.readyForQueryStatus();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** Keeps the last bytes of a backend reply to see whether it ended with ReadyForQuery. */
class ReplyTail {
  private bytes = new Uint8Array(0);

  push(data: Uint8Array): void {
    if (data.length >= READY_FOR_QUERY_LENGTH) {
      this.bytes = data.slice(data.length - READY_FOR_QUERY_LENGTH);
      return;
    }
    const joined = new Uint8Array(this.bytes.length + data.length);
    joined.set(this.bytes, 0);
    joined.set(data, this.bytes.length);
    this.bytes = joined.slice(Math.max(0, joined.length - READY_FOR_QUERY_LENGTH));
  }

  /** The transaction status byte of a trailing ReadyForQuery message, or null. */
  readyForQueryStatus(): number | null {
    const b = this.bytes;
    if (b.length !== READY_FOR_QUERY_LENGTH) return null;
    const isReadyForQuery = b[0] === READY_FOR_QUERY && b[1] === 0 && b[2] === 0 && b[3] === 0 && b[4] === 5;
    return isReadyForQuery ? b[5] : null;
  }
}

function syncMessage(): Uint8Array {
  return Uint8Array.of(0x53, 0, 0, 0, 4); // 'S', length 4
}

function simpleQueryMessage(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0, 'ascii');
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}
