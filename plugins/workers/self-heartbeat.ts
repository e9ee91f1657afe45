import type { ServiceBroker } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { forgetSilentWorkers, markStopped, recordHeartbeat } from './heartbeat-store.ts';
import { describeThisNode, inFlightOf } from './this-node.ts';

type Logger = { warn(...args: unknown[]): void };

/**
 * Records this node's heartbeat at start, every WORKER_HEARTBEAT_SECONDS, and a final
 * "stopped" mark on stop, so nodes without an HTTP listener (control, work) are listed too,
 * and a node that shut down cleanly reads as offline rather than stale. Each tick also deletes
 * the rows of workers silent for longer than WORKER_FORGET_SECONDS (every restart of a node
 * is a new worker id, so rows would otherwise pile up). A failed write is logged and retried
 * at the next tick; it never stops the node.
 */
export class SelfHeartbeat {
  private timer: NodeJS.Timeout | undefined;
  private pending: Promise<void> = Promise.resolve();
  private failing = false;
  private busy = false;

  constructor(
    private readonly broker: ServiceBroker,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    const seconds = kernelOf(this.broker).config.env.WORKER_HEARTBEAT_SECONDS;
    this.timer = setInterval(() => void this.beat(), seconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pending;
    await markStopped(kernelOf(this.broker).db, this.broker.nodeID).catch((err: Error) => this.logger.warn(`Could not mark worker ${this.broker.nodeID} stopped: ${err.message}`));
  }

  /** One heartbeat; a tick that comes while the previous write still runs waits for that one instead. */
  beat(): Promise<void> {
    if (this.busy) return this.pending;
    this.busy = true;
    this.pending = this.write().finally(() => {
      this.busy = false;
    });
    return this.pending;
  }

  private async write(): Promise<void> {
    const kernel = kernelOf(this.broker);
    try {
      await recordHeartbeat(kernel.db, describeThisNode(this.broker, kernel.config.env, inFlightOf(this.broker, kernel.queue)));
      const forgetAfter = kernel.config.env.WORKER_FORGET_SECONDS;
      if (forgetAfter > 0) await forgetSilentWorkers(kernel.db, forgetAfter);
      this.failing = false;
    } catch (err) {
      // one warning per outage, not one per tick
      if (!this.failing) this.logger.warn(`Could not record the heartbeat of worker ${this.broker.nodeID}: ${(err as Error).message}`);
      this.failing = true;
    }
  }
}
