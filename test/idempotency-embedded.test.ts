import test from 'ava';
import { join } from 'node:path';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { IdempotencyProbe } from './helpers/idempotency-probe.ts';

// embedded PGlite (no DATABASE_URL): the keys live in the same tables there
const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const probe = new IdempotencyProbe();
let kernel: TestKernel;

test.before(async () => {
  kernel = await startTestKernel({ roots: [FIXTURES], env: { RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: '' } });
  kernel.broker.createService(probe.service());
  await eventually(async () => (await send(0, 'warm-up')).status === 201);
});
test.after.always(async () => {
  await kernel?.close();
});

function send(n: number, key: string) {
  return api(kernel.apiUrl, '/api/v1/idem-probe', { method: 'POST', token: 'owner-token', json: { n }, headers: { 'Idempotency-Key': key } });
}

test.serial('on embedded PGlite: replay, another body, and a duplicate in flight', async (t) => {
  const before = probe.effects;
  const first = await send(1, 'k1');
  t.is(first.status, 201, first.text);
  const again = await send(1, 'k1');
  t.is(again.headers.get('Idempotent-Replayed'), 'true');
  t.deepEqual(again.body, first.body);
  t.is((await send(2, 'k1')).status, 422);
  const held = probe.hold();
  const running = send(3, 'k2');
  await held.running;
  t.is((await send(3, 'k2')).status, 409);
  held.release();
  t.is((await running).status, 201);
  t.is(probe.effects - before, 2);
});

test.serial('a key whose request was abandoned (claimed longer than twice the request timeout) is taken over', async (t) => {
  const held = probe.hold();
  const abandoned = send(4, 'k3');
  await held.running;
  // as if its node had died long ago: the claim's age is past the bound
  await kernel.stores!.db.query("UPDATE idempotency_keys SET claimed_at = now() - interval '1 day' WHERE key = 'k3'");
  const before = probe.effects;
  const takeover = await send(4, 'k3');
  t.is(takeover.status, 201, takeover.text);
  t.is(probe.effects - before, 1, 'the retry ran');
  held.release();
  t.is((await abandoned).status, 201, 'the first still answers its own client');
  const replay = await send(4, 'k3');
  t.is(replay.headers.get('Idempotent-Replayed'), 'true');
  t.deepEqual(replay.body, takeover.body, 'the taking-over request\'s answer is the one kept');
});
