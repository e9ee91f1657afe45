import test from 'ava';
import { MemoryJobQueue } from '../kernel/queue/memory.ts';
import { registerJobHandler, servedJobNames } from '../kernel/queue/dispatch.ts';
import { eventually } from './helpers/eventually.ts';

test('jobs of one queue go to the handler registered for their name; reloads replace, unloads remove', async (t) => {
  const queue = new MemoryJobQueue();
  t.teardown(() => queue.close());
  const seen: string[] = [];
  const stopRuns = registerJobHandler(queue, 'work', 'workflow.run', 2, async (job) => void seen.push(`run ${job.id}`));
  const stopJobs = registerJobHandler(queue, 'work', 'job.fire', 2, async (job) => void seen.push(`fire ${job.id}`));
  t.deepEqual(servedJobNames(queue, 'work').sort(), ['job.fire', 'workflow.run']);
  await queue.enqueue('work', { name: 'workflow.run', id: 'r1' });
  await queue.enqueue('work', { name: 'job.fire', id: 'j1' });
  await eventually(async () => seen.length === 2);
  t.deepEqual(seen.sort(), ['fire j1', 'run r1']);

  const reloaded = registerJobHandler(queue, 'work', 'job.fire', 2, async (job) => void seen.push(`fire v2 ${job.id}`));
  stopJobs(); // the old version stopping after the new one started leaves the new one in place
  await queue.enqueue('work', { name: 'job.fire', id: 'j2' });
  await eventually(async () => seen.includes('fire v2 j2'));
  t.true(seen.includes('fire v2 j2'));

  reloaded();
  stopRuns();
  t.deepEqual(servedJobNames(queue, 'work'), []);
  await queue.enqueue('work', { name: 'job.fire', id: 'j3' });
  await eventually(async () => (await queue.counts('work')).failed === 1);
  t.is((await queue.counts('work')).failed, 1, 'a job nobody serves fails its try instead of vanishing');
  t.false(seen.some((s) => s.includes('j3')));
});
