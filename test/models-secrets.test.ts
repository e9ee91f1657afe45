import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { sealedBox, SealedBoxError } from '../kernel/secrets/sealed-box.ts';
import { loadSecretKey, SECRET_KEY_FILE } from '../kernel/secrets/secret-key.ts';
import { toProblem } from '../kernel/errors/problem.ts';
import { loadConfig } from '../config/load.ts';
import { readChatStream } from '../kernel/models-contract.ts';
import { MODELS_ERR } from '../plugins/models/errors.ts';
import { keyPrefixOf } from '../plugins/models/fields.ts';
import { scrubSecret } from '../plugins/models/providers/scrub.ts';
import { runAttempt } from '../plugins/models/sdk/attempt.ts';
import { toFailure } from '../plugins/models/sdk/failure.ts';
import { startModelsKernel, USERS } from './helpers/models-kernel.ts';

const SECRET_A = 'a'.repeat(16) + '0123456789abcdef0123456789abcdef';
const SECRET_B = 'b'.repeat(16) + '0123456789abcdef0123456789abcdef';

test('a sealed value opens with the same secret and context, with a fresh IV each time', (t) => {
  const box = sealedBox(SECRET_A, 'model-api-keys');
  const one = box.seal('sk-plain', 'row-1');
  const two = box.seal('sk-plain', 'row-1');
  t.not(one, two, 'random IV per value');
  t.false(one.includes('sk-plain'));
  t.regex(one, /^v1\.[0-9a-f]{12}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  t.is(box.open(one, 'row-1'), 'sk-plain');
  t.is(box.open(two, 'row-1'), 'sk-plain');
});

test('a value sealed with one key does not open with another: a clear error, no crash', (t) => {
  const sealed = sealedBox(SECRET_A, 'model-api-keys').seal('sk-plain', 'row-1');
  const err = t.throws(() => sealedBox(SECRET_B, 'model-api-keys').open(sealed, 'row-1'), { instanceOf: SealedBoxError });
  t.is(err!.reason, 'other_key');
  t.regex(err!.message, /sealed with another key.*SECRET_KEY/);
  t.false(err!.message.includes('sk-plain'));
  // another purpose under the same secret is another key too
  t.is(t.throws(() => sealedBox(SECRET_A, 'channel-credentials').open(sealed, 'row-1'), { instanceOf: SealedBoxError })!.reason, 'other_key');
});

test('an altered value, or one moved to another record, fails authentication', (t) => {
  const box = sealedBox(SECRET_A, 'model-api-keys');
  const sealed = box.seal('sk-plain', 'model_api_keys:e-1:row-1');
  t.is(t.throws(() => box.open(sealed, 'model_api_keys:e-2:row-1'), { instanceOf: SealedBoxError })!.reason, 'tampered');
  const parts = sealed.split('.');
  const flipped = Buffer.from(parts[3], 'base64url');
  flipped[0] ^= 1;
  parts[3] = flipped.toString('base64url');
  t.is(t.throws(() => box.open(parts.join('.'), 'model_api_keys:e-1:row-1'), { instanceOf: SealedBoxError })!.reason, 'tampered');
  for (const junk of ['', 'plain text', 'v2.a.b.c.d', 'v1.x.y']) {
    t.is(t.throws(() => box.open(junk), { instanceOf: SealedBoxError })!.reason, 'malformed', junk);
  }
});

test('with SECRET_KEY empty, a secret is generated once under DATA_DIR (mode 0600) and reused', (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'wao-secret-')), 'nested');
  t.teardown(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));
  const first = loadSecretKey({ SECRET_KEY: '', DATA_DIR: dataDir });
  t.is(first.source, 'generated');
  const path = join(dataDir, SECRET_KEY_FILE);
  t.is(first.path, path);
  t.is(statSync(path).mode & 0o777, 0o600);
  t.regex(readFileSync(path, 'utf8'), /^[0-9a-f]{64}\n$/);
  const again = loadSecretKey({ SECRET_KEY: '', DATA_DIR: dataDir });
  t.is(again.source, 'file');
  t.true(again.material.equals(first.material));
  // the file's text given as SECRET_KEY is the same secret (moving to several nodes)
  const asEnv = loadSecretKey({ SECRET_KEY: readFileSync(path, 'utf8').trim(), DATA_DIR: '/nonexistent' });
  t.is(asEnv.source, 'env');
  t.is(sealedBox(asEnv.material, 'p').keyId, sealedBox(first.material, 'p').keyId);
  // an emptied file is an error, never silently replaced
  writeFileSync(path, '');
  t.throws(() => loadSecretKey({ SECRET_KEY: '', DATA_DIR: dataDir }), { message: /empty/ });
});

test('SECRET_KEY shorter than 32 characters is refused at start, without printing it', (t) => {
  const err = t.throws(() => loadConfig({ SECRET_KEY: 'short-secret-value' }, '/nonexistent/.env'));
  t.regex(err!.message, /SECRET_KEY=\(hidden\) must be at least 32 characters/);
  t.false(err!.message.includes('short-secret-value'));
  t.notThrows(() => loadConfig({ SECRET_KEY: SECRET_A }, '/nonexistent/.env'));
});

test('key_prefix: 6 characters, never more than a third of the key', (t) => {
  t.is(keyPrefixOf('sk-proj-abcdefghijklmnop'), 'sk-pro…');
  t.is(keyPrefixOf('123456789012345678'), '123456…');
  t.is(keyPrefixOf('12345678901234567'), '12345…');
  t.is(keyPrefixOf('abc'), 'a…');
  t.is(keyPrefixOf('ab'), '…');
});

test('scrubSecret removes the key, any long part of it, and key-shaped strings', (t) => {
  const key = 'sk-proj-Zq8xW1vB7nT3mK9pL2cR5yH0';
  t.is(scrubSecret(`Incorrect API key provided: ${key}.`, key), 'Incorrect API key provided: [redacted].');
  const echoed = scrubSecret(`key sk-proj-Zq8x****************cR5yH0 invalid; also ${key.slice(5, 20)}`, key);
  t.false(echoed.includes('Zq8x'));
  t.false(echoed.includes(key.slice(5, 20)));
  t.is(scrubSecret('token was Bearer abc.def-ghi12345', 'other'), 'token was Bearer [redacted]');
  t.is(scrubSecret('{"x-api-key": "hunter2hunter2"}', 'other'), '{"x-api-key": "[redacted]"}');
  t.is(scrubSecret('line\none\u0000', 'other'), 'line one');
  t.true(scrubSecret('y'.repeat(5000), 'other').length <= 501);
});

test('an unreachable provider is a retryable failure naming it, without the key', async (t) => {
  const apiKey = 'sk-unreachable-000000000';
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
  const target = { provider: 'openai' as const, baseUrl: `http://127.0.0.1:${port}/v1`, apiKey, model: 'm', fetch: globalThis.fetch };
  const err = await t.throwsAsync(runAttempt({ target, messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal, () => undefined));
  const failure = toFailure(err, { provider: 'openai', apiKey, timedOut: false, aborted: false, timeoutMs: 10_000 });
  t.is(failure.kind, 'provider');
  t.regex(failure.message, /Could not reach openai: ECONNREFUSED/);
  t.true(failure.retryable);
  t.false(failure.message.includes(apiKey));
});

test('the gateway maps the package\'s upstream errors to their own problem codes', (t) => {
  const provider = toProblem(MODELS_ERR.PROVIDER('openai answered 500: boom', { provider_status: 500 }), 'rid');
  t.like(provider, { status: 502, body: { status: 502, code: 'MODELS_ERR_PROVIDER', detail: 'openai answered 500: boom', type: '/api/errors#models_err_provider' } });
  t.false('provider_status' in provider.body, 'a server error carries no data fields');
  t.like(toProblem(MODELS_ERR.PROVIDER_REJECTED_KEY('rejected')).body, { status: 502, code: 'MODELS_ERR_PROVIDER_REJECTED_KEY' });
  t.like(toProblem(MODELS_ERR.PROVIDER_TIMEOUT('slow')).body, { status: 504, code: 'MODELS_ERR_PROVIDER_TIMEOUT' });
  t.like(toProblem(MODELS_ERR.NO_KEY('none')).body, { status: 422, code: 'MODELS_ERR_NO_KEY' });
  // anything else of status 5xx stays a bare 500
  t.like(toProblem(Object.assign(new Error('x'), { code: 502, type: 'SOMETHING' })).body, { status: 500, code: 'INTERNAL_ERROR' });
});

test('readChatStream reads NDJSON split anywhere, and reports a stream cut before its end', async (t) => {
  const text = '{"type":"delta","text":"h\u00e9"}\n{"type":"done","text":"h\u00e9","model":"m","provider":"openai","api_key_id":"k","usage":{"input_tokens":1,"output_tokens":1}}\n';
  const bytes = Buffer.from(text);
  const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 26), bytes.subarray(26)]; // splits inside the two-byte é
  const lines = [];
  for await (const line of readChatStream(Readable.from(pieces))) lines.push(line);
  t.deepEqual(lines.map((l) => l.type), ['delta', 'done']);
  t.deepEqual(lines[0], { type: 'delta', text: 'h\u00e9' });
  const cut = [];
  for await (const line of readChatStream(Readable.from([Buffer.from('{"type":"delta","text":"a"}\n')]))) cut.push(line);
  t.like(cut.at(-1), { type: 'error', code: 'MODELS_ERR_STREAM_CUT' });
});

test('at rest the column holds no raw key; after a restart with another SECRET_KEY the key is unreadable with a clear 409', async (t) => {
  const first = await startModelsKernel('models_secrets', { env: { SECRET_KEY: SECRET_A } });
  let restarted: Awaited<ReturnType<typeof startModelsKernel>> | undefined;
  try {
    const raw = 'sk-at-rest-PLAINTEXTMARKER-42';
    const key = await first.addKey('owner-token', { name: 'At rest', api_key: raw });
    const rows = await first.kernel.stores!.db.query<Record<string, unknown>>('SELECT * FROM model_api_keys WHERE id = $1', { bind: [key.id], type: QueryTypes.SELECT });
    const rowText = JSON.stringify(rows[0]);
    t.false(rowText.includes('PLAINTEXTMARKER'), 'no column holds the raw key');
    t.regex(String(rows[0].sealed_key), /^v1\./);
    t.is(rows[0].key_prefix, 'sk-at-…');
    const [{ found }] = await first.kernel.stores!.db.query<{ found: number }>(
      "SELECT count(*)::int AS found FROM model_api_keys WHERE sealed_key LIKE '%PLAINTEXTMARKER%' OR name LIKE '%PLAINTEXTMARKER%'",
      { type: QueryTypes.SELECT },
    );
    t.is(found, 0);
    first.provider.replies.push({ text: 'works' });
    t.like(await first.chat({ messages: [{ role: 'user', content: 'x' }] }), { text: 'works' });
    t.is(first.provider.requests.at(-1)!.headers.authorization, `Bearer ${raw}`);
    await first.close({ keepStores: true });

    restarted = await startModelsKernel('models_secrets', { env: { SECRET_KEY: SECRET_B }, reuse: { db: first.db, provider: first.provider } });
    const listed = await restarted.call('/api/v1/api-keys', { token: 'owner-token' });
    t.is(listed.status, 200, 'metadata still reads');
    const seen = first.provider.requests.length;
    const err = await t.throwsAsync(restarted.chat({ messages: [{ role: 'user', content: 'x' }] }, USERS.owner));
    t.like(err, { code: 409, type: 'MODELS_ERR_KEY_UNREADABLE' });
    t.regex(err!.message, /stored under another SECRET_KEY.*rotate/);
    t.like(await t.throwsAsync(restarted.chatStream({ messages: [{ role: 'user', content: 'x' }] })), { code: 409, type: 'MODELS_ERR_KEY_UNREADABLE' });
    t.is(first.provider.requests.length, seen, 'nothing was sent to the provider');
    // rotating stores the key under the new secret
    const rotated = await restarted.call(`/api/v1/api-keys/${key.id}/rotate`, { method: 'POST', token: 'owner-token', json: { api_key: 'sk-after-restart-000000' } });
    t.is(rotated.status, 200);
    first.provider.replies.push({ text: 'works again' });
    t.like(await restarted.chat({ messages: [{ role: 'user', content: 'x' }] }), { text: 'works again' });
  } finally {
    await restarted?.close().catch(() => undefined);
    await first.close({ keepStores: true }).catch(() => undefined); // stopped already unless a check above failed first
    await first.db.drop();
    await first.provider.close();
  }
});
