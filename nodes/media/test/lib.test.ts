import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { artifactKeyOf } from '../lib/artifacts.ts';
import { limitsFor, runTool } from '../lib/ffmpeg.ts';
import { raceLimits } from '../lib/step.ts';
import { Slots } from '../lib/slots.ts';
import audio from '../../audio/index.ts';
import image from '../../image/index.ts';
import video from '../../video/index.ts';
import media from '../index.ts';

const never = new Promise<never>(() => undefined);

test('raceLimits: a cancel of the run or the deadline ends work that cannot be stopped itself', async (t) => {
  const controller = new AbortController();
  const limits = limitsFor(controller.signal, 60);
  const raced = raceLimits(never, limits);
  controller.abort(new NodeStepError('The step was interrupted: cancelled', 'STEP_INTERRUPTED'));
  const e = await t.throwsAsync(raced);
  t.is((e as NodeStepError).type, 'STEP_INTERRUPTED');
  const late = await t.throwsAsync(raceLimits(never, { ...limitsFor(new AbortController().signal, 1), deadline: performance.now() - 1 }));
  t.is((late as NodeStepError).type, 'STEP_TIMEOUT');
  t.is(await raceLimits(Promise.resolve(7), limitsFor(new AbortController().signal, null)), 7);
});

test('runTool: a missing ffmpeg is MEDIA_TOOL_MISSING; a tool failing gives its reason without the temp path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'media-lib-'));
  const path = process.env.PATH;
  try {
    process.env.PATH = '/nonexistent';
    const missing = await t.throwsAsync(runTool('ffprobe', ['-version'], dir, limitsFor(new AbortController().signal, 5)));
    t.is((missing as NodeStepError).type, 'MEDIA_TOOL_MISSING');
    process.env.PATH = path;
    const failed = await t.throwsAsync(runTool('ffprobe', ['-v', 'error', '-i', join(dir, 'absent.wav')], dir, limitsFor(new AbortController().signal, 5)));
    t.is((failed as NodeStepError).type, 'BAD_FILE');
    t.false(failed!.message.includes(dir));
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('artifact keys: only this entity\'s, content-addressed, with no way out of the prefix', (t) => {
  const key = `workflows/artifacts/e-1/r-1/${'ab'.repeat(32)}.png`;
  t.is(artifactKeyOf({ object_key: key }, 'e-1'), key);
  t.is(artifactKeyOf(key, 'e-1'), key);
  for (const bad of [key.replace('e-1', 'e-2'), `workflows/artifacts/e-1/../e-2/${'ab'.repeat(32)}.png`, `workflows/artifacts/e-1/r-1/x/${'ab'.repeat(32)}.png`, 'workflows/artifacts/e-1/r-1/passwd']) {
    t.throws(() => artifactKeyOf(bad, 'e-1'), { message: /no artifact/ }, bad);
  }
  t.throws(() => artifactKeyOf(key, ''), { message: /no artifact/ });
  t.throws(() => artifactKeyOf({ key }, 'e-1'), { message: /artifact reference/ });
});

test('the media declarations: every config key has a description and an example, every optional one a default; side effects declared', (t) => {
  for (const service of [image, audio, video, media]) {
    const d = service.metadata.nodeType;
    t.is(d.category, 'media');
    t.is(d.side_effect, 'idempotent', `${d.type}: a repeat writes the same content-addressed artifact`);
    const schema = d.config_schema as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    for (const [key, s] of Object.entries(schema.properties)) {
      t.truthy(s.description, `${d.type}.${key} has a description`);
      t.true(Array.isArray(s.examples) && s.examples.length > 0, `${d.type}.${key} has an example`);
      if (!schema.required?.includes(key) && key !== 'content' && key !== 'artifact') t.true('default' in s, `${d.type}.${key} has a default`);
    }
  }
});

test('slots: at most size at once; a waiter stops at its cancel or deadline; a release lets the next in', async (t) => {
  const slots = new Slots(1);
  const stopped = (why: string) => new NodeStepError(why, why === 'abort' ? 'STEP_INTERRUPTED' : 'STEP_TIMEOUT');
  const first = await slots.acquire(new AbortController().signal, Infinity, stopped);
  const cancel = new AbortController();
  const cancelled = slots.acquire(cancel.signal, Infinity, stopped);
  cancel.abort();
  t.is(((await t.throwsAsync(cancelled)) as NodeStepError).type, 'STEP_INTERRUPTED');
  t.is(((await t.throwsAsync(slots.acquire(new AbortController().signal, performance.now(), stopped))) as NodeStepError).type, 'STEP_TIMEOUT');
  const next = slots.acquire(new AbortController().signal, Infinity, stopped);
  t.is(slots.inUse, 1);
  first();
  first(); // a second release of the same slot changes nothing
  const second = await next;
  t.is(slots.inUse, 1);
  second();
  t.is(slots.inUse, 0);
});
