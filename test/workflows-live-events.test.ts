import test from 'ava';
import type { ServiceBroker } from 'moleculer';
import { LiveEvents, RUN_EVENTS_TOPIC, RUN_WATCH_TOPIC, type LiveEvent } from '../plugins/workflows/engine/live-events.ts';

/** A LiveEvents whose broadcasts come straight back to it, as on a single node. */
function singleNode(): LiveEvents {
  let live: LiveEvents;
  const broker = {
    broadcast(topic: string, payload: never) {
      if (topic === RUN_EVENTS_TOPIC) live.deliver(payload);
      if (topic === RUN_WATCH_TOPIC) live.markWatched(payload);
    },
  } as unknown as ServiceBroker;
  live = new LiveEvents(broker);
  return live;
}

const received = async (live: LiveEvents, runId: string): Promise<LiveEvent[]> => {
  const got: LiveEvent[] = [];
  const stop = live.subscribe(runId, (events) => got.push(...events));
  await new Promise((r) => setImmediate(r));
  stop();
  return got;
};

test('a subscriber that comes after a watched run streamed live-only events gets them; a durable event covers the earlier ones', async (t) => {
  const live = singleNode();
  live.publish('r1', 'e1', [{ type: 'agent.text.delta', data: { text: 'lost?' } }]);
  t.deepEqual(await received(live, 'r0'), [], 'nothing for another run');
  live.watch('r1');
  live.publish('r1', 'e1', [{ type: 'agent.text.delta', data: { text: 'Hel' } }, { type: 'agent.text.delta', data: { text: 'lo' } }]);
  t.deepEqual((await received(live, 'r1')).map((e) => e.data.text), ['Hel', 'lo']);
  live.publish('r1', 'e1', [{ id: 3, type: 'agent.message', data: { text: 'Hello' } }, { type: 'agent.text.delta', data: { text: 'Next' } }]);
  t.deepEqual((await received(live, 'r1')).map((e) => e.data.text), ['Next'], 'the durable message (replayed from the database) covers the deltas before it');
});

test('an unwatched run costs no broadcast and keeps nothing', async (t) => {
  const live = singleNode();
  live.publish('r2', 'e1', [{ type: 'agent.text.delta', data: { text: 'x' } }]);
  t.deepEqual(await received(live, 'r2'), []);
});
