import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sequelize } from 'sequelize';
import { connectDatabase } from '../../../kernel/db/connect.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../kernel/db/embedded.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/pg.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';
import { applyOperation } from '../document-ops.ts';
import { runOperation } from '../project-store.ts';
import { up } from '../migrations/001-workflow-project.ts';
import project from '../index.ts';

test('operations: set creates containers, merge is deep, increment counts from 0', (t) => {
  let doc = applyOperation({}, { operation: 'set', path: 'a.b', value: [1] }).document;
  t.deepEqual(doc, { a: { b: [1] } });
  doc = applyOperation(doc, { operation: 'set', path: 'a.b[1]', value: 2 }).document;
  t.deepEqual(doc, { a: { b: [1, 2] } });
  doc = applyOperation(doc, { operation: 'merge', path: '', value: { a: { c: true }, d: 'x' } }).document;
  t.deepEqual(doc, { a: { b: [1, 2], c: true }, d: 'x' });
  const inc = applyOperation(doc, { operation: 'increment', path: 'n.sent', by: 3 });
  t.is(inc.value, 3);
  t.is(applyOperation(inc.document, { operation: 'increment', path: 'n.sent', by: -1 }).value, 2);
  t.is(applyOperation(doc, { operation: 'get', path: 'missing.x' }).value, null);
});

test('operations: bad paths and values are precise step failures', (t) => {
  const fail = (f: () => unknown) => (t.throws(f) as { type?: string }).type;
  t.is(fail(() => applyOperation({ s: 'text' }, { operation: 'increment', path: 's', by: 1 })), 'BAD_INPUT');
  t.is(fail(() => applyOperation({ s: 'text' }, { operation: 'set', path: 's.x', value: 1 })), 'BAD_INPUT');
  t.is(fail(() => applyOperation({}, { operation: 'set', path: '__proto__.polluted', value: 1 })), 'BAD_CONFIG');
  t.is(fail(() => applyOperation({}, { operation: 'merge', path: '', value: JSON.parse('{"__proto__": {"x": 1}}') })), 'BAD_CONFIG');
  t.is(fail(() => applyOperation({}, { operation: 'set', path: '', value: [1] })), 'BAD_INPUT');
  t.is(fail(() => applyOperation({}, { operation: 'increment', path: '', by: 1 })), 'BAD_CONFIG');
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([project]);
});
test.after.always(() => n?.close());

test('node: bad config and no run context fail before any database work', async (t) => {
  t.is((await n.failure('workflow_project', { operation: 'drop' })).type, 'BAD_CONFIG');
  t.is((await n.failure('workflow_project', { operation: 'merge', value: [1] }, null, { workflow_id: 'w' })).type, 'BAD_CONFIG');
  t.is((await n.failure('workflow_project', { operation: 'get' })).type, 'NO_RUN_CONTEXT');
});

/** Many runs changing one document at once, each on its own connection: no update is lost. */
async function concurrentChanges(t: import('ava').ExecutionContext, db: Sequelize): Promise<void> {
  await up({ context: { sequelize: db, transaction: undefined } } as never);
  const key = { entity_id: 'e-1', scope: 'binding:b-1' };
  const runs = Array.from({ length: 40 }, (_, i) => i);
  const results = await Promise.all(runs.map((i) => runOperation(db, key, i % 2 ? { operation: 'increment', path: 'count', by: 1 } : { operation: 'merge', path: 'seen', value: { [`r${i}`]: true } }, `run-${i}`)));
  const final = await runOperation(db, key, { operation: 'get', path: '' }, 'reader');
  t.is((final.document as { count: number }).count, 20, 'every increment counted');
  t.is(Object.keys((final.document as { seen: object }).seen).length, 20, 'every merge kept');
  t.is(final.version, 40);
  t.deepEqual(new Set(results.map((r) => r.version)).size, 40, 'each change saw a distinct version');
  const other = await runOperation(db, { entity_id: 'e-2', scope: 'binding:b-1' }, { operation: 'get', path: '' }, 'x');
  t.deepEqual(other.document, {}, 'another entity sees none of it');
  const big = await t.throwsAsync(runOperation(db, key, { operation: 'set', path: 'blob', value: 'x'.repeat(300_000) }, 'big'));
  t.is((big as { type?: string }).type, 'DOCUMENT_TOO_LARGE');
  t.is((await runOperation(db, key, { operation: 'get', path: 'blob' }, 'r')).value, null, 'nothing stored');
}

test.serial('PostgreSQL: concurrent increments and merges lose no update', async (t) => {
  const pg: TestDatabase = await createTestDatabase('wf_project');
  const db = await connectDatabase({ url: pg.url, pool: { max: 12 } });
  try {
    await concurrentChanges(t, db);
  } finally {
    await db.close();
    await pg.drop();
  }
});

test.serial('embedded PGlite: concurrent increments and merges lose no update', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-project-'));
  const embedded: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: dir, maxConnections: 16 });
  const db = await connectDatabase({ url: embedded.url, pool: { max: 12 } });
  try {
    await concurrentChanges(t, db);
  } finally {
    await db.close();
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
