import test from 'ava';
import sharp from 'sharp';
import { kernelOf } from '../../../kernel/context.ts';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('node_media', { nodes: ['trigger', 'media', 'image', 'transform'] });
});
test.after.always(async () => {
  await k?.close();
});

async function run(token: string, steps: unknown[], input: unknown): Promise<any> {
  const wf = await k.createWorkflow(token, { name: 'media', steps });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token, json: { input, wait: true } });
  return runUntil(k, token, started.body.run_id ?? started.body.id, ['completed', 'failed']);
}

test('the run detail lists each step\'s artifacts; they are in the kernel object store; another entity\'s run cannot read them', async (t) => {
  const png = (await sharp({ create: { width: 30, height: 20, channels: 3, background: '#0a0' } }).png().toBuffer()).toString('base64');
  const done = await run('owner-token', [
    { id: 'start', type: 'trigger', config: {}, next: ['sniff'] },
    { id: 'sniff', type: 'media', config: { content: '{{trigger.file}}', branches: { image: 'thumb' } }, next: ['thumb'] },
    { id: 'thumb', type: 'image', config: { operation: 'resize', artifact: '{{sniff.output.artifact}}', width: 15 }, next: [] },
  ], { file: png });
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const sniff = receipt(done, 'sniff');
  const thumb = receipt(done, 'thumb');
  t.deepEqual(sniff.artifacts, [sniff.output.artifact]);
  t.deepEqual(thumb.artifacts, [thumb.output.artifact]);
  t.true(thumb.output.artifact.object_key.startsWith(`workflows/artifacts/e-1/${done.id}/`));
  const stored = await kernelOf(k.kernel.broker).objects.getBuffer(thumb.output.artifact.object_key);
  t.like(await sharp(stored!).metadata(), { width: 15, height: 10 });

  const stolen = await run('other-token', [
    { id: 'start', type: 'trigger', config: {}, next: ['peek'] },
    { id: 'peek', type: 'image', config: { operation: 'metadata', artifact: '{{trigger.key}}' }, next: [] },
  ], { key: thumb.output.artifact.object_key });
  t.is(stolen.status, 'failed');
  t.is(receipt(stolen, 'peek').error.code, 'BAD_INPUT');
  t.regex(receipt(stolen, 'peek').error.message, /no artifact .* of this workflow's owner/);
});
