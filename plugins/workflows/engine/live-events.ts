import { EventEmitter } from 'node:events';
import type { ServiceBroker } from 'moleculer';

/** An event of a run's stream; `id` is its seq when it is durable (replayable with Last-Event-ID). */
export interface LiveEvent {
  id?: number;
  type: string;
  data: Record<string, unknown>;
}

export const RUN_EVENTS_TOPIC = 'workflows.run.events';
export const RUN_WATCH_TOPIC = 'workflows.run.watch';

const WATCH_TTL_MS = 60_000;
/** live-only events kept per run for a subscriber that comes late (a chat stream opened right after its run started) */
const RECENT_MAX = 2_000;

/**
 * Run events, fanned out to every node (the worker that commits a step may not be the api
 * node holding the client's SSE stream). Durable events carry their seq as id; `step.started`
 * of a step that did not commit a receipt before running goes out live without an id, and is
 * repeated with its id when the step's receipt commits.
 *
 * On a single node (no transporter) they go straight to this node's subscribers, without a
 * moleculer event. Only watched runs are broadcast: a node that opens a stream (or waits for a run) announces
 * the run id to every node first. A durable event a stream misses while that announcement
 * travels is read from the database (the stream fills any gap in the ids), so nothing is lost,
 * and a run nobody watches costs no broadcast at all.
 *
 * Live-only events (text deltas) are not in the database: each node keeps those of a watched
 * run received since its last durable event (that event covers them: an agent's message holds
 * the text its deltas streamed) and hands them to a subscriber that comes after them, so a
 * stream opened right after its run started misses no delta.
 */
export class LiveEvents {
  private readonly emitter = new EventEmitter();
  private readonly watched = new Map<string, number>();
  private readonly recent = new Map<string, { events: LiveEvent[]; until: number }>();

  constructor(private readonly broker: ServiceBroker) {
    this.emitter.setMaxListeners(0);
  }

  publish(runId: string, entityId: string, events: LiveEvent[]): void {
    if (events.length === 0) return;
    const until = this.watched.get(runId);
    if (until === undefined) return;
    if (until < Date.now()) {
      this.watched.delete(runId);
      return;
    }
    const payload = { run_id: runId, entity_id: entityId, events };
    // one node (no transporter): straight to this node's subscribers. A broadcast would only come
    // back here, through moleculer's event context, middlewares and metrics, once per text delta
    if (!this.broker.transit) this.deliver(payload);
    else void this.broker.broadcast(RUN_EVENTS_TOPIC, payload);
  }

  /** Called by the service's event handler on every node. */
  deliver(payload: { run_id: string; events: LiveEvent[] }): void {
    this.keepRecent(payload.run_id, payload.events);
    if (this.emitter.listenerCount(payload.run_id) > 0) this.emitter.emit(payload.run_id, payload.events);
  }

  private keepRecent(runId: string, events: LiveEvent[]): void {
    let entry = this.recent.get(runId);
    for (const e of events) {
      if (e.id !== undefined || e.type === 'run.finished') {
        entry = undefined;
        this.recent.delete(runId);
      } else {
        if (!entry) this.recent.set(runId, (entry = { events: [], until: Date.now() + WATCH_TTL_MS }));
        if (entry.events.length < RECENT_MAX) entry.events.push(e);
      }
    }
    if (this.recent.size > 1000) for (const [id, kept] of this.recent) if (kept.until < Date.now()) this.recent.delete(id);
  }

  /** Starts broadcasting a run's events on every node before anyone subscribes (a stream that will follow it). */
  watch(runId: string): void {
    this.announce(runId);
  }

  /** Called on every node when some node watches a run. */
  markWatched(payload: { run_id: string; until: number }): void {
    this.watched.set(payload.run_id, Math.max(payload.until, this.watched.get(payload.run_id) ?? 0));
  }

  private announce(runId: string): void {
    const payload = { run_id: runId, until: Date.now() + WATCH_TTL_MS };
    this.markWatched(payload);
    void this.broker.broadcast(RUN_WATCH_TOPIC, payload);
  }

  subscribe(runId: string, listener: (events: LiveEvent[]) => void): () => void {
    this.emitter.on(runId, listener);
    this.announce(runId);
    // after the caller's own set-up of this turn (a follower queues its replay first)
    const missed = this.recent.get(runId)?.events.slice();
    if (missed?.length) queueMicrotask(() => listener(missed));
    const renew = setInterval(() => this.announce(runId), WATCH_TTL_MS / 2);
    renew.unref();
    return () => {
      clearInterval(renew);
      this.emitter.off(runId, listener);
    };
  }
}
