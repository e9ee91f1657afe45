import test from 'ava';
import { GroupCommit } from '../plugins/workflows/store/group-commit.ts';

/** A writer whose batches are released by hand, recording what went to the "database". */
function writer(opts: { failMany?: unknown; failOne?: (n: number) => boolean } = {}) {
  const calls: { kind: 'one' | 'many'; items: number[] }[] = [];
  const gates: (() => void)[] = [];
  const gate = () => new Promise<void>((resolve) => gates.push(resolve));
  return {
    calls,
    release: () => gates.splice(0).forEach((g) => g()),
    write: {
      async one(n: number) {
        calls.push({ kind: 'one', items: [n] });
        await gate();
        if (opts.failOne?.(n)) throw new Error(`item ${n} refused`);
        return n * 10;
      },
      async many(items: number[]) {
        calls.push({ kind: 'many', items });
        await gate();
        if (opts.failMany) throw opts.failMany;
        return items.map((n) => n * 10);
      },
    },
  };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a submission with a free slot goes at once and alone; later ones wait and go together', async (t) => {
  const w = writer();
  const group = new GroupCommit(w.write, { maxInFlight: 1, maxBatch: 10, rolledBack: () => true });
  const first = group.submit(1);
  const rest = [group.submit(2), group.submit(3), group.submit(4)];
  await tick();
  t.deepEqual(w.calls, [{ kind: 'one', items: [1] }]);
  w.release();
  t.is(await first, 10);
  await tick();
  t.deepEqual(w.calls[1], { kind: 'many', items: [2, 3, 4] });
  w.release();
  t.deepEqual(await Promise.all(rest), [20, 30, 40]);
});

test('a batch larger than maxBatch is split', async (t) => {
  const w = writer();
  const group = new GroupCommit(w.write, { maxInFlight: 1, maxBatch: 2, rolledBack: () => true });
  const all = [1, 2, 3, 4, 5].map((n) => group.submit(n));
  for (let i = 0; i < 4; i++) {
    await tick();
    w.release();
  }
  t.deepEqual(await Promise.all(all), [10, 20, 30, 40, 50]);
  t.deepEqual(w.calls.map((c) => c.items), [[1], [2, 3], [4, 5]]);
});

test('a batch the database refused is retried one by one: only the bad item fails', async (t) => {
  const w = writer({ failMany: Object.assign(new Error('bad row'), { code: '22P02' }), failOne: (n) => n === 3 });
  const group = new GroupCommit(w.write, { maxInFlight: 1, maxBatch: 10, rolledBack: (e) => (e as { code?: string }).code === '22P02' });
  const first = group.submit(1);
  const rest = [2, 3, 4].map((n) => group.submit(n).then((v) => v, (e: Error) => e.message));
  for (let i = 0; i < 4; i++) {
    await tick();
    w.release();
  }
  await first;
  t.deepEqual(await Promise.all(rest), [20, 'item 3 refused', 40]);
});

test('a batch whose outcome is unknown (connection lost) fails whole and is never repeated', async (t) => {
  const lost = new Error('Connection terminated unexpectedly');
  const w = writer({ failMany: lost });
  const group = new GroupCommit(w.write, { maxInFlight: 1, maxBatch: 10, rolledBack: () => false });
  const first = group.submit(1);
  const rest = [2, 3].map((n) => group.submit(n).then(() => 'ok', (e: Error) => e));
  for (let i = 0; i < 3; i++) {
    await tick();
    w.release();
  }
  await first;
  t.deepEqual(await Promise.all(rest), [lost, lost]);
  t.is(w.calls.filter((c) => c.kind === 'one').length, 1, 'only the first, lone submission went alone');
});
