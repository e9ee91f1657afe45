import test from 'ava';
import { DeltaBatch } from '../port.ts';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a delta goes at once while no send is in flight; the ones that come meanwhile go out as one afterwards, in order; flush sends the rest', async (t) => {
  const sent: string[] = [];
  let release!: () => void;
  const batch = new DeltaBatch(async (text) => {
    sent.push(text);
    if (sent.length === 2) await new Promise<void>((resolve) => (release = resolve));
    return { stop: false };
  });
  batch.add('Oh, ');
  t.deepEqual(sent, ['Oh, '], 'sent before any wait');
  await tick();
  batch.add('Hel');
  t.deepEqual(sent, ['Oh, ', 'Hel'], 'sent at once: nothing was in flight');
  batch.add('lo');
  batch.add(' wor');
  await tick();
  t.deepEqual(sent, ['Oh, ', 'Hel'], 'nothing more while a send is in flight');
  batch.add('ld');
  release();
  t.false(await batch.flush());
  t.deepEqual(sent, ['Oh, ', 'Hel', 'lo world']);
});

test('a stop answer is seen by check() and flush(); nothing is sent after it, nor after close', async (t) => {
  const sent: string[] = [];
  const batch = new DeltaBatch(async (text) => {
    sent.push(text);
    return { stop: true, reason: 'interrupted' };
  });
  batch.add('a');
  t.false(batch.check());
  await tick();
  await batch.flush();
  t.true(batch.check());
  batch.add('b');
  t.true(await batch.flush());
  t.deepEqual(sent, ['a']);
  const closed = new DeltaBatch(async (text) => (sent.push(text), { stop: false }));
  closed.close();
  closed.add('c');
  await closed.flush();
  t.deepEqual(sent, ['a']);
});

test('a failed call is rethrown by check()', async (t) => {
  const batch = new DeltaBatch(async () => {
    throw new Error('the engine node went away');
  });
  batch.add('a');
  await tick();
  await t.throwsAsync(() => batch.flush(), { message: 'the engine node went away' });
  t.throws(() => batch.check(), { message: 'the engine node went away' });
});
