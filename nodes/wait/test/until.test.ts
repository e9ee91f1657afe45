import test from 'ava';
import wait from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

/** A timer until a date-time: a past one does not wait; text without an offset is read in `zone`; what is no date-time, or over a year ahead, fails the step. */
let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([wait]);
});
test.after.always(() => n?.close());

test('until a past date-time does not wait; a future one waits until then', async (t) => {
  const past = await n.exec('wait', { wait_type: 'timer', until: '2020-01-01T09:00:00' });
  t.deepEqual(past.pause, { kind: 'timer', seconds: 0, message: null });
  const ahead = new Date(Date.now() + 30 * 86400_000).toUTCString();
  const future = await n.exec('wait', { wait_type: 'timer', until: ahead });
  t.true(future.pause.seconds > 29 * 86400 && future.pause.seconds <= 30 * 86400, String(future.pause.seconds));
  const seconds = await n.exec('wait', { wait_type: 'timer', seconds: 5, until: '2020-01-01' });
  t.is(seconds.pause.seconds, 5, 'seconds, when given, win');
});

test('bad input: no date-time, a zone that does not exist, more than a year ahead', async (t) => {
  const text = await n.failure('wait', { wait_type: 'timer', until: 'after lunch' });
  t.is(text.type, 'BAD_INPUT');
  t.regex(text.message, /config\.until: 'after lunch' is not a date-time/);
  const zone = await n.failure('wait', { wait_type: 'timer', until: '2020-01-01T09:00:00', zone: 'Atlantis/Capital' });
  t.is(zone.type, 'BAD_CONFIG');
  t.regex(zone.message, /config\.zone 'Atlantis\/Capital' is not an IANA time zone/);
  const far = await n.failure('wait', { wait_type: 'timer', until: '2999-01-01T00:00:00Z' });
  t.is(far.type, 'BAD_CONFIG');
  t.regex(far.message, /more than a year ahead/);
});
