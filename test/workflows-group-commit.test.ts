import test from 'ava';
import { GroupCommit } from '../kernel/db/group-commit.ts';

/**
 * A writer whose statements are released by hand, recording what went to the "database".
 * `refuse(items)` is the error a statement of these items fails with (none: it succeeds).
 */
function writer(opts: { refuse?: (items: number[]) => unknown } = {}) {
  const calls: number[][] = [];
  const gates: (() => void)[] = [];
  const gate = () => new Promise<void>((resolve) => gates.push(resolve));
  return {
    calls,
    release: () => gates.splice(0).forEach((g) => g()),
    async write(items: number[]) {
      calls.push(items);
      await gate();
      const err = opts.refuse?.(items);
      if (err) throw err;
      return items.map((n) => n * 10);
    },
  };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a submission with a free slot goes at once and alone; later ones wait and go together', async (t) => {
  const w = writer();
  const group = new GroupCommit((items: number[]) => w.write(items), { maxInFlight: 1, maxBatch: 10, rolledBack: () => true });
  const first = group.submit(1);
  const rest = [group.submit(2), group.submit(3), group.submit(4)];
  await tick();
  t.deepEqual(w.calls, [[1]]);
  w.release();
  t.is(await first, 10);
  await tick();
  t.deepEqual(w.calls[1], [2, 3, 4]);
  w.release();
  t.deepEqual(await Promise.all(rest), [20, 30, 40]);
});

test('with keyOf, a batch holds one item per key: a repeated key waits, with what follows it, for the next batch', async (t) => {
  const w = writer();
  const group = new GroupCommit((items: number[]) => w.write(items), { maxInFlight: 1, maxBatch: 10, rolledBack: () => true, keyOf: (n) => String(n % 10) });
  const all = [1, 2, 3, 12, 4, 5].map((n) => group.submit(n));
  for (let i = 0; i < 3; i++) {
    await tick();
    w.release();
  }
  t.deepEqual(await Promise.all(all), [10, 20, 30, 120, 40, 50]);
  t.deepEqual(w.calls, [[1], [2, 3], [12, 4, 5]]);
});

test('a batch larger than maxBatch is split', async (t) => {
  const w = writer();
  const group = new GroupCommit((items: number[]) => w.write(items), { maxInFlight: 1, maxBatch: 2, rolledBack: () => true });
  const all = [1, 2, 3, 4, 5].map((n) => group.submit(n));
  for (let i = 0; i < 4; i++) {
    await tick();
    w.release();
  }
  t.deepEqual(await Promise.all(all), [10, 20, 30, 40, 50]);
  t.deepEqual(w.calls, [[1], [2, 3], [4, 5]]);
});

test('a batch the database refused is retried one by one: only the bad item fails', async (t) => {
  const w = writer({ refuse: (items) => (items.includes(3) ? Object.assign(new Error(items.length > 1 ? 'bad row' : 'item 3 refused'), { code: '22P02' }) : undefined) });
  const group = new GroupCommit((items: number[]) => w.write(items), { maxInFlight: 1, maxBatch: 10, rolledBack: (e) => (e as { code?: string }).code === '22P02' });
  const first = group.submit(1);
  const rest = [2, 3, 4].map((n) => group.submit(n).then((v) => v, (e: Error) => e.message));
  for (let i = 0; i < 4; i++) {
    await tick();
    w.release();
  }
  await first;
  t.deepEqual(await Promise.all(rest), [20, 'item 3 refused', 40]);
  t.deepEqual(w.calls, [[1], [2, 3, 4], [2], [3], [4]]);
});

test('a batch whose outcome is unknown (connection lost) fails whole and is never repeated', async (t) => {
  const lost = new Error('Connection terminated unexpectedly');
  const w = writer({ refuse: (items) => (items.length > 1 ? lost : undefined) });
  const group = new GroupCommit((items: number[]) => w.write(items), { maxInFlight: 1, maxBatch: 10, rolledBack: () => false });
  const first = group.submit(1);
  const rest = [2, 3].map((n) => group.submit(n).then(() => 'ok', (e: Error) => e));
  for (let i = 0; i < 3; i++) {
    await tick();
    w.release();
  }
  await first;
  t.deepEqual(await Promise.all(rest), [lost, lost]);
  t.deepEqual(w.calls, [[1], [2, 3]], 'the lost batch was not repeated');
});

test('each statement is reported once: its size, the wait of its oldest item, its round trip, whether it failed', async (t) => {
  const w = writer({ refuse: (items) => (items.includes(13) && items.length > 1 ? Object.assign(new Error('refused'), { code: '23514' }) : undefined) });
  const seen: { size: number; waitedMs: number; flushMs: number; ok: boolean }[] = [];
  const group = new GroupCommit((items: number[]) => w.write(items), { maxInFlight: 1, maxBatch: 10, rolledBack: () => true, onFlush: (s) => seen.push(s) });
  const first = group.submit(1);
  const rest = [group.submit(12), group.submit(13)];
  await tick();
  w.release();
  await first;
  await tick();
  w.release(); // [12, 13] is refused: each goes again alone
  await tick();
  w.release();
  await Promise.all(rest);
  t.deepEqual(seen.map((s) => [s.size, s.ok]), [[1, true], [2, false]], 'the retries one by one are the batch\'s own, not new statements');
  t.true(seen.every((s) => s.waitedMs >= 0 && s.flushMs >= 0));
});
