import type { ServiceBroker } from 'moleculer';
import { LIVE_EVENTS_RUNS_MAX, WORKFLOWS_LIVE_EVENTS_ACTION, type DurableAnswer, type LiveEventsAnswer, type RunEventsParams } from './durable.ts';

interface Waiting {
  entry: RunEventsParams;
  resolve(answer: DurableAnswer): void;
  reject(err: unknown): void;
}

/**
 * The live events of every durable step this process runs, on their way to the nodes driving
 * their runs: gathered for the rest of the event-loop turn, then sent as one `workflows.liveEvents`
 * call per engine node (at most LIVE_EVENTS_RUNS_MAX runs each). Under load a turn holds the
 * deltas of many streams, and a broker call per delta (its middlewares, validation and metrics)
 * cost the main thread more than the deltas themselves. The calls carry no caller context: the
 * action only hands the events to the run's executor.
 */
class LiveOutbox {
  private readonly byNode = new Map<string, Waiting[]>();

  constructor(private readonly broker: ServiceBroker) {}

  send(engineNode: string, entry: RunEventsParams): Promise<DurableAnswer> {
    let waiting = this.byNode.get(engineNode);
    if (!waiting) {
      this.byNode.set(engineNode, (waiting = []));
      setImmediate(() => this.flush(engineNode));
    }
    const queue = waiting;
    return new Promise<DurableAnswer>((resolve, reject) => queue.push({ entry, resolve, reject }));
  }

  private flush(engineNode: string): void {
    const waiting = this.byNode.get(engineNode) ?? [];
    this.byNode.delete(engineNode);
    for (let at = 0; at < waiting.length; at += LIVE_EVENTS_RUNS_MAX) {
      const batch = waiting.slice(at, at + LIVE_EVENTS_RUNS_MAX);
      this.broker.call<LiveEventsAnswer, unknown>(WORKFLOWS_LIVE_EVENTS_ACTION, { runs: batch.map((w) => w.entry) }, { nodeID: engineNode }).then(
        ({ answers }) => batch.forEach((w, i) => w.resolve(answers[i] ?? { stop: true, reason: 'the engine node gave no answer for this run' })),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      );
    }
  }
}

const outboxes = new WeakMap<ServiceBroker, LiveOutbox>();

/** Sends a run's live events to the node driving it (`context.engine_node`), batched with others; answers that run's DurableAnswer. */
export function sendLiveEvents(broker: ServiceBroker, engineNode: string, entry: RunEventsParams): Promise<DurableAnswer> {
  let outbox = outboxes.get(broker);
  if (!outbox) outboxes.set(broker, (outbox = new LiveOutbox(broker)));
  return outbox.send(engineNode, entry);
}
