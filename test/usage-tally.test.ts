import test from 'ava';
import { readContribution, sumContributions } from '../plugins/usage/tally.ts';

test('a contribution keeps the five counters and ignores other keys', (t) => {
  t.deepEqual(readContribution({ tasks: 2, storage_bytes: 0, colour: 'red', runs: null }), { counts: { tasks: 2, storage_bytes: 0 } });
  t.deepEqual(readContribution({}), { counts: {} });
});

test('an unusable contribution says why', (t) => {
  t.deepEqual(readContribution(null), { problem: 'the answer is not an object' });
  t.deepEqual(readContribution([1]), { problem: 'the answer is not an object' });
  t.deepEqual(readContribution({ tokens: -1 }), { problem: 'tokens is not a non-negative integer' });
  t.deepEqual(readContribution({ runs: 1.5 }), { problem: 'runs is not a non-negative integer' });
  t.deepEqual(readContribution({ jobs: '3' }), { problem: 'jobs is not a non-negative integer' });
  t.deepEqual(readContribution({ storage_bytes: 2 ** 60 }), { problem: 'storage_bytes is not a non-negative integer' });
});

test('sums every counter, 0 where nobody contributed', (t) => {
  t.deepEqual(sumContributions([]), { tasks: 0, runs: 0, jobs: 0, tokens: 0, storage_bytes: 0 });
  t.deepEqual(sumContributions([{ tasks: 1, tokens: 10 }, { tasks: 2, storage_bytes: 5 }]), { tasks: 3, runs: 0, jobs: 0, tokens: 10, storage_bytes: 5 });
});
