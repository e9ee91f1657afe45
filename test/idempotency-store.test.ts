import test from 'ava';
import { QueryTypes, type Sequelize } from 'sequelize';
import { connectDatabase } from '../kernel/db/connect.ts';
import { runMigrations } from '../kernel/db/migrations.ts';
import { IdempotencyStore } from '../kernel/idempotency/store.ts';
import { lazyPooledSql } from '../kernel/db/pooled-sql.ts';
import { idempotencyKeyOf } from '../kernel/idempotency/header.ts';
import { keyScopeOf } from '../kernel/idempotency/declaration.ts';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';

let db: TestDatabase;
let sequelize: Sequelize;
let store: IdempotencyStore;
const FINGERPRINT = 'a'.repeat(64);

test.before(async () => {
  db = await createTestDatabase('idem_store');
  sequelize = await connectDatabase({ url: db.url, pool: { max: 12 } });
  await runMigrations(sequelize, { name: 'kernel', dir: join(import.meta.dirname, '..', 'kernel', 'idempotency', 'migrations') });
  store = new IdempotencyStore(lazyPooledSql(() => ({ db: sequelize, embedded: false })), { ttlSeconds: 3600, abandonAfterMs: 60_000 });
});
test.after.always(async () => {
  await sequelize?.close();
  await db?.drop();
});

test('of ten simultaneous first requests with one key, exactly one runs', async (t) => {
  const claims = await Promise.all(Array.from({ length: 10 }, () => store.claim('entity:race', 'same', FINGERPRINT)));
  t.is(claims.filter((c) => c.outcome === 'claimed').length, 1);
  t.is(claims.filter((c) => c.outcome === 'in_flight').length, 9);
});

test('a completed key replays; a released one is free; only its own claim completes it', async (t) => {
  const first = await store.claim('entity:s', 'k', FINGERPRINT);
  if (first.outcome !== 'claimed') return t.fail(first.outcome);
  t.false(await store.complete('entity:s', 'k', '00000000-0000-4000-8000-000000000000', { status: 201, contentType: null, location: null, body: null }), 'another claim id');
  t.true(await store.complete('entity:s', 'k', first.claimId, { status: 201, contentType: 'application/json', location: '/api/v1/x/1', body: Buffer.from('{"id":1}') }));
  t.deepEqual(await store.claim('entity:s', 'k', FINGERPRINT), { outcome: 'replay', response: { status: 201, contentType: 'application/json', location: '/api/v1/x/1', body: Buffer.from('{"id":1}') } });
  t.deepEqual(await store.claim('entity:s', 'k', 'b'.repeat(64)), { outcome: 'mismatch' });
  const other = await store.claim('entity:s', 'freed', FINGERPRINT);
  if (other.outcome !== 'claimed') return t.fail(other.outcome);
  await store.release('entity:s', 'freed', other.claimId);
  t.is((await store.claim('entity:s', 'freed', 'c'.repeat(64))).outcome, 'claimed', 'free for another request too');
});

test('prune deletes expired keys only', async (t) => {
  await store.claim('entity:p', 'old', FINGERPRINT);
  await store.claim('entity:p', 'young', FINGERPRINT);
  await sequelize.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE scope = 'entity:p' AND key = 'old'");
  t.true((await store.prune()) >= 1);
  const rows = await sequelize.query<{ key: string }>("SELECT key FROM idempotency_keys WHERE scope = 'entity:p'", { type: QueryTypes.SELECT });
  t.deepEqual(rows.map((r) => r.key), ['young']);
});

test('the header: an sf-string or a bare token; anything else names the header', (t) => {
  t.is(idempotencyKeyOf(undefined), undefined);
  t.is(idempotencyKeyOf('"8e03978e-40d5-43e8-bc93-6894a57f9324"'), '8e03978e-40d5-43e8-bc93-6894a57f9324');
  t.is(idempotencyKeyOf('"say \\"hi\\""'), 'say "hi"');
  t.is(idempotencyKeyOf('plain-token_1'), 'plain-token_1');
  for (const bad of ['', '""', '"open', 'two words', '"é"', '"a"; x=1', ['"a"', '"b"']]) {
    const err = t.throws(() => idempotencyKeyOf(bad as string)) as { type?: string; data?: { errors: { field: string }[] } };
    t.is(err.type, 'IDEMPOTENCY_KEY_INVALID', String(bad));
    t.is(err.data?.errors[0].field, 'Idempotency-Key');
  }
});

test('which routes take a key: POSTs that create or start for a caller, and what actions declare', (t) => {
  t.deepEqual(keyScopeOf({ response: { 201: {} } }, 'POST'), { by: 'entity' });
  t.deepEqual(keyScopeOf({ response: { 200: {}, 202: {} } }, 'POST'), { by: 'entity' });
  t.is(keyScopeOf({ response: { 201: {} } }, 'PUT'), undefined);
  t.is(keyScopeOf({ response: { 200: {} } }, 'POST'), undefined);
  t.is(keyScopeOf({ response: { 201: {} }, auth: false }, 'POST'), undefined, 'a public create has no caller to scope by');
  t.is(keyScopeOf({ response: { 201: {} }, idempotency: false }, 'POST'), undefined);
  t.deepEqual(keyScopeOf({ response: { 200: {} }, idempotency: true }, 'POST'), { by: 'entity' });
  t.deepEqual(keyScopeOf({ auth: false, idempotency: { scope_param: 'token' } }, 'POST'), { by: 'param', param: 'token' });
});
