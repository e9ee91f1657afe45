import test from 'ava';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QueryTypes, type Sequelize } from 'sequelize';
import { connectDatabase, hasVector } from '../kernel/db/connect.ts';
import { MIGRATION_LOCK_NAMESPACE } from '../kernel/db/migration-lock.ts';
import { MigrationFailedError, pendingMigrations, runMigrations } from '../kernel/db/migrations.ts';
import { cosineSimilaritySql, vectorColumnType, vectorValueSql } from '../kernel/db/vector.ts';
import { createTestDatabase, testDatabaseAdminUrl, type TestDatabase } from './helpers/pg.ts';

// Real PostgreSQL 15 on 127.0.0.1:5432 (no pgvector). Each test gets its own database.

const fixtures = (name: string): string => fileURLToPath(new URL(`./fixtures/migrations/${name}/`, import.meta.url));
const pkgA = { name: 'pkg-a', dir: fixtures('pkg-a') };
const pkgB = { name: 'pkg-b', dir: fixtures('pkg-b') };
const PKG_A_MIGRATIONS = ['001-create', '002-add-note', '003-seed', '004-index-concurrently'];

const openDatabases: TestDatabase[] = [];
const openInstances: Sequelize[] = [];

async function freshDatabase(label: string, poolMax = 5): Promise<{ db: TestDatabase; sequelize: Sequelize }> {
  const db = await createTestDatabase(label);
  openDatabases.push(db);
  const sequelize = await connectDatabase({ url: db.url, pool: { max: poolMax } });
  openInstances.push(sequelize);
  return { db, sequelize };
}

async function connectAgain(url: string): Promise<Sequelize> {
  const sequelize = await connectDatabase({ url, pool: { max: 5 } });
  openInstances.push(sequelize);
  return sequelize;
}

async function appliedRows(sequelize: Sequelize, pkg: string): Promise<string[]> {
  const rows = await sequelize.query<{ name: string }>(
    'SELECT name FROM kernel_migrations WHERE package = $1 ORDER BY applied_at, name',
    { bind: [pkg], type: QueryTypes.SELECT },
  );
  return rows.map((row) => row.name);
}

async function tableExists(sequelize: Sequelize, table: string): Promise<boolean> {
  const rows = await sequelize.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', {
    bind: [table],
    type: QueryTypes.SELECT,
  });
  return rows[0]?.found != null;
}

test.after.always(async () => {
  for (const sequelize of openInstances) await sequelize.close().catch(() => {});
  for (const db of openDatabases) await db.drop();
});

test('connectDatabase answers SELECT 1 and speaks UTC', async (t) => {
  const { sequelize } = await freshDatabase('db_connect');
  const [row] = await sequelize.query<{ tz: string; one: number }>(
    "SELECT current_setting('TimeZone') AS tz, 1 AS one",
    { type: QueryTypes.SELECT },
  );
  t.is(row.one, 1);
  t.is(row.tz, 'UTC');
});

test('connectDatabase fails with the URL in the message, password masked', async (t) => {
  const error = await t.throwsAsync(
    connectDatabase({ url: 'postgres://postgres:s3cret@127.0.0.1:1/none', connectTimeoutMs: 2000 }),
  );
  t.regex(error.message, /Cannot connect to PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none/);
  t.false(error.message.includes('s3cret'));
});

test('hasVector reports what the server offers without throwing (false on stock PostgreSQL 15)', async (t) => {
  const { sequelize } = await freshDatabase('db_hasvector');
  const offered = await sequelize.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'", {
    type: QueryTypes.SELECT,
  });
  t.is(await hasVector(sequelize), offered.length > 0);
});

test('runMigrations applies a package in file-name order, .ts and .js, and records each once', async (t) => {
  const { sequelize } = await freshDatabase('db_migrate_order');
  t.deepEqual(await pendingMigrations(sequelize, pkgA), PKG_A_MIGRATIONS);

  const first = await runMigrations(sequelize, pkgA);
  t.deepEqual(first.applied, PKG_A_MIGRATIONS);
  t.deepEqual(await appliedRows(sequelize, 'pkg-a'), PKG_A_MIGRATIONS);
  const items = await sequelize.query<{ title: string; note: string }>('SELECT title, note FROM pkg_a_items', {
    type: QueryTypes.SELECT,
  });
  t.deepEqual(items, [{ title: 'seeded', note: 'from 003' }]);
  t.true(await tableExists(sequelize, 'pkg_a_items_title'), 'the non-transactional index migration ran');

  const again = await runMigrations(sequelize, pkgA);
  t.deepEqual(again.applied, [], 'a second run applies nothing');
  t.deepEqual(await pendingMigrations(sequelize, pkgA), []);
  const [count] = await sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM pkg_a_items', {
    type: QueryTypes.SELECT,
  });
  t.is(count.n, 1, 'the seed did not run twice');
});

test('a failing migration is named in the error; earlier ones stay applied, its own work is rolled back', async (t) => {
  const { sequelize } = await freshDatabase('db_migrate_fail');
  await runMigrations(sequelize, pkgA);

  const error = await t.throwsAsync(runMigrations(sequelize, pkgB), { instanceOf: MigrationFailedError });
  t.regex(error.message, /Migration 002-broken\.ts of package pkg-b failed: .*pkg_b_no_such_table/);
  t.is(error.packageName, 'pkg-b');
  t.is(error.file, '002-broken.ts');

  t.deepEqual(await appliedRows(sequelize, 'pkg-b'), ['001-create']);
  t.deepEqual(await appliedRows(sequelize, 'pkg-a'), PKG_A_MIGRATIONS, 'same file name, other package: kept apart');
  t.true(await tableExists(sequelize, 'pkg_b_things'));
  t.false(await tableExists(sequelize, 'pkg_b_partial'), 'the failing migration left nothing behind');
  t.false(await tableExists(sequelize, 'pkg_b_never'));
  t.deepEqual(await pendingMigrations(sequelize, pkgB), ['002-broken', '003-never']);
});

test('a migration file without up() fails naming package and file', async (t) => {
  const { sequelize } = await freshDatabase('db_migrate_invalid');
  const error = await t.throwsAsync(runMigrations(sequelize, { name: 'pkg-invalid', dir: fixtures('pkg-invalid') }));
  t.regex(error.message, /001-no-up\.ts of package pkg-invalid .*does not export an up\(\) function/);
});

test('two nodes migrating at once apply each migration exactly once', async (t) => {
  const { db, sequelize } = await freshDatabase('db_migrate_race');
  // Two separate processes, both connected before either starts migrating.
  const nodes = [startMigrationNode(db.url, pkgA), startMigrationNode(db.url, pkgA)];
  await Promise.all(nodes.map((node) => node.ready));
  for (const node of nodes) node.go();
  const [a, b] = await Promise.all(nodes.map((node) => node.applied));

  t.deepEqual([...a, ...b].sort(), PKG_A_MIGRATIONS);
  t.deepEqual(await appliedRows(sequelize, 'pkg-a'), PKG_A_MIGRATIONS);
  const [count] = await sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM pkg_a_items', {
    type: QueryTypes.SELECT,
  });
  t.is(count.n, 1);
});

test('runMigrations waits for the advisory lock another node holds', async (t) => {
  const { db, sequelize } = await freshDatabase('db_migrate_lock');
  const otherNode = await connectAgain(db.url);
  // A session lock on a raw connection, no transaction open: exactly what a migrating node holds.
  const holder = (await otherNode.connectionManager.getConnection({ type: 'write' })) as {
    query(text: string, values?: unknown[]): Promise<unknown>;
  };
  await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_NAMESPACE, 'pkg-a']);

  // Resolves once the runner has found the lock taken three times in a row.
  let busyThreeTimes!: () => void;
  const sawBusy = new Promise<void>((resolve) => (busyThreeTimes = resolve));
  const run = runMigrations(sequelize, pkgA, { onLockBusy: (attempts) => attempts >= 3 && busyThreeTimes() });
  await Promise.race([
    sawBusy,
    run.then(() => {
      throw new Error('runMigrations finished while another node held the lock');
    }),
  ]);
  t.false(await tableExists(otherNode, 'pkg_a_items'), 'nothing ran while the lock was held elsewhere');
  t.false(await tableExists(otherNode, 'kernel_migrations'));

  await holder.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_NAMESPACE, 'pkg-a']);
  otherNode.connectionManager.releaseConnection(holder);
  t.deepEqual((await run).applied, PKG_A_MIGRATIONS);
});

test('runMigrations refuses a pool too small to hold the lock and migrate', async (t) => {
  const { db } = await freshDatabase('db_migrate_pool');
  const single = await connectDatabase({ url: db.url, pool: { max: 1 } });
  openInstances.push(single);
  const error = await t.throwsAsync(runMigrations(single, pkgA));
  t.regex(error.message, /pool of at least 2/);
});

test('cosine similarity on the real[] path orders by direction', async (t) => {
  const { sequelize } = await freshDatabase('db_cosine_array');
  t.is(vectorColumnType(false, 3), 'real[]');
  await sequelize.query(`CREATE TABLE docs (id text PRIMARY KEY, embedding ${vectorColumnType(false, 3)})`);
  const docs: Array<[string, number[]]> = [
    ['same', [2, 4, 6]],
    ['close', [1, 2, 2]],
    ['orthogonal', [2, -1, 0]],
    ['opposite', [-1, -2, -3]],
    ['zero', [0, 0, 0]],
    ['short', [1, 2]],
  ];
  for (const [id, embedding] of docs) {
    await sequelize.query(`INSERT INTO docs (id, embedding) VALUES ($1, ${vectorValueSql('$2', false)})`, {
      bind: [id, embedding],
    });
  }
  const rows = await sequelize.query<{ id: string; score: number | null }>(
    `SELECT id, ${cosineSimilaritySql('d.embedding', '$1', false)} AS score
     FROM docs d ORDER BY score DESC NULLS LAST, id`,
    { bind: [[1, 2, 3]], type: QueryTypes.SELECT },
  );
  t.deepEqual(
    rows.map((row) => row.id),
    ['same', 'close', 'orthogonal', 'opposite', 'short', 'zero'],
  );
  const score = Object.fromEntries(rows.map((row) => [row.id, row.score]));
  t.true(Math.abs((score.same ?? 0) - 1) < 1e-9);
  t.true(Math.abs((score.close ?? 0) - 11 / (3 * Math.sqrt(14))) < 1e-9);
  t.true(Math.abs(score.orthogonal ?? 1) < 1e-9);
  t.true(Math.abs((score.opposite ?? 0) + 1) < 1e-9);
  t.is(score.zero, null, 'a zero vector has no direction');
  t.is(score.short, null, 'vectors of different lengths are not compared');
});

test('vectorColumnType rejects impossible dimensions', (t) => {
  t.is(vectorColumnType(true, 1536), 'vector(1536)');
  t.throws(() => vectorColumnType(true, 0), { message: /from 1 to 16000/ });
  t.throws(() => vectorColumnType(false, 1.5), { message: /from 1 to 16000/ });
});

test('createTestDatabase drops its database even with connections still open', async (t) => {
  const db = await createTestDatabase('db_helper_drop');
  const stillOpen = await connectDatabase({ url: db.url });
  const admin = await connectDatabase({ url: testDatabaseAdminUrl(), pool: { max: 1 } });
  try {
    t.true(db.name.startsWith('test_db_helper_drop_'));
    await db.drop();
    await db.drop(); // idempotent
    const rows = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', {
      bind: [db.name],
      type: QueryTypes.SELECT,
    });
    t.is(rows.length, 0);
  } finally {
    await stillOpen.close().catch(() => {});
    await admin.close();
  }
});

interface MigrationNode {
  ready: Promise<void>;
  go(): void;
  applied: Promise<string[]>;
}

/** A child process that connects, prints "ready", waits for a line on stdin, migrates and prints the result. */
function startMigrationNode(url: string, pkg: { name: string; dir: string }): MigrationNode {
  const kernelDb = (file: string): string => new URL(`../kernel/db/${file}`, import.meta.url).href;
  const script = `
    import { connectDatabase } from ${JSON.stringify(kernelDb('connect.ts'))};
    import { runMigrations } from ${JSON.stringify(kernelDb('migrations.ts'))};
    const sequelize = await connectDatabase({ url: process.env.NODE_DB_URL, pool: { max: 3 } });
    console.log('ready');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    const { applied } = await runMigrations(sequelize, { name: process.env.NODE_PKG_NAME, dir: process.env.NODE_PKG_DIR });
    console.log('applied ' + JSON.stringify(applied));
    await sequelize.close();
    process.exit(0);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, NODE_DB_URL: url, NODE_PKG_NAME: pkg.name, NODE_PKG_DIR: pkg.dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready')) resolve();
    });
    void exited.then((code) => reject(new Error(`migration node exited (${code}) before ready: ${stderr}`)));
  });
  const applied = exited.then((code) => {
    const match = /applied (.*)/.exec(stdout);
    if (code !== 0 || !match) throw new Error(`migration node failed (${code}): ${stderr}`);
    return JSON.parse(match[1]) as string[];
  });
  return { ready, go: () => child.stdin.write('go\n'), applied };
}
