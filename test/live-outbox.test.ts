import test from 'ava';
import { ServiceBroker, type Context } from 'moleculer';
import { LIVE_EVENTS_RUNS_MAX, type LiveEventsParams } from '../kernel/nodes/durable.ts';
import { sendLiveEvents } from '../kernel/nodes/live-outbox.ts';

/** A broker whose `workflows.liveEvents` records each call and answers as `answer` says. */
async function engineBroker(answer: (params: LiveEventsParams) => unknown) {
  const broker = new ServiceBroker({ logger: false, nodeID: `outbox-${process.pid}-${Math.random().toString(36).slice(2)}` });
  const calls: LiveEventsParams[] = [];
  broker.createService({
    name: 'workflows',
    actions: {
      liveEvents(ctx: Context<LiveEventsParams>) {
        calls.push(ctx.params);
        return answer(ctx.params);
      },
    },
  });
  await broker.start();
  return { broker, calls };
}

const delta = (text: string) => [{ type: 'agent.text.delta', data: { round: 1, text } }];

test('the live events of one event-loop turn go to their engine node in one call, in order; each run gets its own answer', async (t) => {
  const { broker, calls } = await engineBroker(({ runs }) => ({ answers: runs.map((r) => ({ stop: r.run_id === 'r-2' })) }));
  t.teardown(() => broker.stop());
  const answers = await Promise.all([
    sendLiveEvents(broker, broker.nodeID, { run_id: 'r-1', events: delta('a') }),
    sendLiveEvents(broker, broker.nodeID, { run_id: 'r-2', events: delta('b') }),
    sendLiveEvents(broker, broker.nodeID, { run_id: 'r-1', events: delta('c') }),
  ]);
  t.deepEqual(answers, [{ stop: false }, { stop: true }, { stop: false }]);
  t.is(calls.length, 1);
  t.deepEqual(calls[0].runs.map((r) => [r.run_id, r.events[0].data.text]), [['r-1', 'a'], ['r-2', 'b'], ['r-1', 'c']]);
  // a later turn is another call
  await sendLiveEvents(broker, broker.nodeID, { run_id: 'r-3', events: delta('d') });
  t.is(calls.length, 2);
});

test(`more than ${LIVE_EVENTS_RUNS_MAX} runs in a turn are split over several calls`, async (t) => {
  const { broker, calls } = await engineBroker(({ runs }) => ({ answers: runs.map(() => ({ stop: false })) }));
  t.teardown(() => broker.stop());
  const sent = Array.from({ length: LIVE_EVENTS_RUNS_MAX + 1 }, (_, i) => sendLiveEvents(broker, broker.nodeID, { run_id: `r-${i}`, events: delta(String(i)) }));
  t.is((await Promise.all(sent)).length, LIVE_EVENTS_RUNS_MAX + 1);
  t.deepEqual(calls.map((c) => c.runs.length), [LIVE_EVENTS_RUNS_MAX, 1]);
});

test('a call that fails rejects every run it carried; a run the answer leaves out is told to stop', async (t) => {
  let fail = true;
  const { broker } = await engineBroker(() => {
    if (fail) throw new Error('the engine node is gone');
    return { answers: [] };
  });
  t.teardown(() => broker.stop());
  const failed = [sendLiveEvents(broker, broker.nodeID, { run_id: 'r-1', events: delta('a') }), sendLiveEvents(broker, broker.nodeID, { run_id: 'r-2', events: delta('b') })];
  for (const f of failed) await t.throwsAsync(f, { message: 'the engine node is gone' });
  fail = false;
  t.like(await sendLiveEvents(broker, broker.nodeID, { run_id: 'r-3', events: delta('c') }), { stop: true });
});
