import test from 'ava';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config/load.ts';
import { AttemptThreads, threadCount } from '../plugins/models/sdk/attempt-threads.ts';
import { runAttempt, type AttemptRequest, type TurnEvent } from '../plugins/models/sdk/attempt.ts';
import { ProviderFailure } from '../plugins/models/sdk/failure.ts';
import { startScriptedProvider, type ScriptedProvider } from './helpers/scripted-provider.ts';

const noDotenv = join(tmpdir(), 'no-such-dir', '.env');
const API_KEY = 'sk-threads-secret-0123456789';
const quiet = { warn: () => undefined };

let provider: ScriptedProvider;
test.before(async () => {
  provider = await startScriptedProvider();
});
test.after.always(() => provider.close());

function request(baseUrl = `${provider.url}/v1`): AttemptRequest {
  return {
    target: { provider: 'openai', apiKey: API_KEY, model: 'm', baseUrl, fetch: globalThis.fetch },
    messages: [{ role: 'user', content: 'hello' }],
    tools: [{ name: 'lookup', description: 'look a thing up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
  };
}

async function threads(t: { teardown(fn: () => unknown): void }, allow = ['127.0.0.1']): Promise<AttemptThreads> {
  const pool = new AttemptThreads(1, { allow }, quiet);
  t.teardown(() => pool.close());
  await pool.warm();
  return pool;
}

test.serial('MODEL_STREAM_THREADS: auto is one thread per core beyond the first three, at most 4; a number is taken as it is; anything else is refused', (t) => {
  t.is(threadCount('auto', 1), 0);
  t.is(threadCount('auto', 2), 0);
  t.is(threadCount('auto', 4), 1);
  t.is(threadCount('auto', 6), 3);
  t.is(threadCount('auto', 16), 4);
  t.is(threadCount('0', 16), 0);
  t.is(threadCount('7', 2), 7);
  t.is(loadConfig({}, noDotenv).env.MODEL_STREAM_THREADS, 'auto');
  t.is(loadConfig({ MODEL_STREAM_THREADS: '0' }, noDotenv).env.MODEL_STREAM_THREADS, '0');
  for (const bad of ['many', '17', '-1', '1.5']) {
    const err = t.throws(() => loadConfig({ MODEL_STREAM_THREADS: bad }, noDotenv), { instanceOf: ConfigError });
    t.regex(err!.message, /MODEL_STREAM_THREADS/);
  }
});

test.serial('an attempt on a thread streams the same events and outcome as on the calling thread', async (t) => {
  const pool = await threads(t);
  const reply = { chunks: ['Let ', 'me ', 'look.'], tool_calls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'x' } }] };
  const outcomes = [];
  const streams: TurnEvent[][] = [];
  for (const run of [(e: (x: TurnEvent) => void) => runAttempt(request(), new AbortController().signal, e), (e: (x: TurnEvent) => void) => pool.run(request(), false, new AbortController().signal, e)]) {
    provider.replies.push(reply);
    const events: TurnEvent[] = [];
    outcomes.push(await run((e) => events.push(e)));
    streams.push(events);
  }
  t.deepEqual(streams[1], streams[0]);
  t.deepEqual(outcomes[1], outcomes[0]);
  t.like(outcomes[1], { text: 'Let me look.', finish_reason: 'tool-calls', tool_calls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'x' } }] });
  t.deepEqual(streams[1].filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text), ['Let ', 'me ', 'look.']);
});

test.serial('a failure on a thread comes back classified and scrubbed: a rejected key, an error status, a guarded base URL', async (t) => {
  const pool = await threads(t);
  provider.replies.push({ error: 401, message: `bad key ${API_KEY}` });
  const rejected = await t.throwsAsync(pool.run(request(), false, new AbortController().signal, () => undefined), { instanceOf: ProviderFailure });
  t.like(rejected, { kind: 'rejected_key', providerStatus: 401, retryable: false });
  t.false(rejected!.message.includes(API_KEY));

  provider.replies.push({ error: 429, retry_after: 2 });
  t.like(await t.throwsAsync(pool.run(request(), false, new AbortController().signal, () => undefined)), { kind: 'provider', providerStatus: 429, retryable: true, retryAfterMs: 2000 });

  // the thread builds its own guarded fetch from the allow-list it was started with
  const refusing = await threads(t, []);
  const blocked = await t.throwsAsync(refusing.run(request(), true, new AbortController().signal, () => undefined), { instanceOf: ProviderFailure });
  t.is(blocked!.kind, 'blocked');
  t.regex(blocked!.message, /MODEL_BASE_URL_ALLOW/);
});

test.serial('aborting an attempt on a thread answers at once with the reason and cuts the provider call', async (t) => {
  const pool = await threads(t);
  provider.replies.push({ chunks: ['partial '], stall_after_chunks: true });
  const arrived = provider.nextRequest();
  const controller = new AbortController();
  const events: TurnEvent[] = [];
  const running = pool.run(request(), false, controller.signal, (e) => {
    events.push(e);
    if (e.type === 'text.delta') controller.abort(new Error('the reader went away'));
  });
  await t.throwsAsync(running, { message: 'the reader went away' });
  t.deepEqual(events, [{ type: 'text.delta', text: 'partial ' }]);
  await provider.closed(await arrived);
  // the thread is free again
  provider.replies.push({ text: 'again' });
  t.like(await pool.run(request(), false, new AbortController().signal, () => undefined), { text: 'again' });
});

test.serial('a thread that dies fails its attempts as a dropped connection (retryable); the next attempt gets a new thread', async (t) => {
  const pool = await threads(t);
  provider.replies.push({ chunks: ['never ends'], stall_after_chunks: true });
  let seen!: () => void;
  const streaming = new Promise<void>((resolve) => (seen = resolve));
  const running = pool.run(request(), false, new AbortController().signal, () => seen());
  await streaming;
  await (pool as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0].worker.terminate();
  const lost = await t.throwsAsync(running, { instanceOf: ProviderFailure });
  t.like(lost, { kind: 'provider', retryable: true });
  await pool.warm();
  provider.replies.push({ text: 'on a new thread' });
  t.like(await pool.run(request(), false, new AbortController().signal, () => undefined), { text: 'on a new thread' });
});

test.serial('until a thread has loaded, and after close, attempts run on the calling thread', async (t) => {
  const pool = new AttemptThreads(1, { allow: [] }, quiet);
  provider.replies.push({ text: 'at once' });
  // the thread starts with this attempt, which does not wait for it (and is not guarded here)
  t.like(await pool.run(request(), false, new AbortController().signal, () => undefined), { text: 'at once' });
  await pool.close();
  provider.replies.push({ text: 'after close' });
  t.like(await pool.run(request(), false, new AbortController().signal, () => undefined), { text: 'after close' });
});
