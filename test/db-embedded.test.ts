import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryTypes, type Sequelize } from 'sequelize';
import { connectDatabase, hasVector } from '../kernel/db/connect.ts';
import { DATA_DIR_LOCK_FILE } from '../kernel/db/data-dir-lock.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../kernel/db/embedded.ts';
import { MigrationFailedError, pendingMigrations, runMigrations } from '../kernel/db/migrations.ts';
import { cosineSimilaritySql, vectorColumnType, vectorValueSql } from '../kernel/db/vector.ts';

// Embedded PGlite in a temp data dir. initdb takes seconds, so the whole file
// shares one boot from an empty folder and one re-open, in order.

const fixtures = (name: string): string => fileURLToPath(new URL(`./fixtures/migrations/${name}/`, import.meta.url));
const pkgA = { name: 'pkg-a', dir: fixtures('pkg-a') };
const pkgB = { name: 'pkg-b', dir: fixtures('pkg-b') };

const tempRoot = mkdtempSync(join(tmpdir(), 'db-embedded-'));
const dataDir = join(tempRoot, 'pg'); // does not exist yet: the first boot starts from nothing
let embedded: EmbeddedPostgres | undefined;
let sequelize: Sequelize | undefined;
const extraInstances: Sequelize[] = [];

function db(): Sequelize {
  if (!sequelize) throw new Error('embedded database not started');
  return sequelize;
}

test.before(async () => {
  embedded = await startEmbeddedPostgres({ dataDir, maxConnections: 40 });
  sequelize = await connectDatabase({ url: embedded.url, pool: { max: 30 } });
});

test.after.always(async () => {
  for (const instance of extraInstances) await instance.close().catch(() => {});
  await sequelize?.close().catch(() => {});
  await embedded?.close().catch(() => {});
  rmSync(tempRoot, { recursive: true, force: true });
});

test.serial('boots from an empty data directory and answers over the wire protocol', async (t) => {
  t.regex(embedded?.url ?? '', /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
  const files = readdirSync(dataDir);
  t.true(files.includes('PG_VERSION'), 'initdb ran in the data directory');
  t.true(files.includes(DATA_DIR_LOCK_FILE));
  const [row] = await db().query<{ version: string }>('SELECT version() AS version', { type: QueryTypes.SELECT });
  t.regex(row.version, /^PostgreSQL \d+/);
});

test.serial('pgvector is there: hasVector is true and <=> orders by cosine', async (t) => {
  t.true(await hasVector(db()));
  await db().query(`CREATE TABLE docs (id text PRIMARY KEY, embedding ${vectorColumnType(true, 3)})`);
  const docs: Array<[string, number[]]> = [
    ['opposite', [-1, -2, -3]],
    ['same', [2, 4, 6]],
    ['orthogonal', [2, -1, 0]],
    ['close', [1, 2, 2]],
  ];
  for (const [id, embedding] of docs) {
    await db().query(`INSERT INTO docs (id, embedding) VALUES ($1, ${vectorValueSql('$2', true)})`, {
      bind: [id, embedding],
    });
  }
  const byDistance = await db().query<{ id: string }>(
    'SELECT id FROM docs ORDER BY embedding <=> $1::real[]::vector',
    { bind: [[1, 2, 3]], type: QueryTypes.SELECT },
  );
  t.deepEqual(byDistance.map((row) => row.id), ['same', 'close', 'orthogonal', 'opposite']);

  const scored = await db().query<{ id: string; score: number }>(
    `SELECT id, ${cosineSimilaritySql('embedding', '$1', true)} AS score FROM docs ORDER BY score DESC`,
    { bind: [[1, 2, 3]], type: QueryTypes.SELECT },
  );
  t.deepEqual(scored.map((row) => row.id), ['same', 'close', 'orthogonal', 'opposite']);
  t.true(Math.abs(scored[0].score - 1) < 1e-6);
  t.true(Math.abs(scored[1].score - 11 / (3 * Math.sqrt(14))) < 1e-6);
  t.true(Math.abs(scored[3].score + 1) < 1e-6);
});

test.serial('25 concurrent transactions with large parameters each commit their own rows', async (t) => {
  await db().query('CREATE TABLE ledger (id int PRIMARY KEY, payload text NOT NULL, total int NOT NULL)');
  const big = (i: number): string => `${i}:`.padEnd(200_000 + i, String.fromCharCode(97 + (i % 26)));
  await Promise.all(
    Array.from({ length: 25 }, (_, i) =>
      db().transaction(async (transaction) => {
        await db().query('INSERT INTO ledger (id, payload, total) VALUES ($1, $2, 0)', {
          bind: [i, big(i)],
          transaction,
        });
        await db().query('UPDATE ledger SET total = total + length(payload) WHERE id = $1', {
          bind: [i],
          transaction,
        });
        const [row] = await db().query<{ payload: string }>('SELECT payload FROM ledger WHERE id = $1', {
          bind: [i],
          type: QueryTypes.SELECT,
          transaction,
        });
        if (row.payload !== big(i)) throw new Error(`transaction ${i} read another transaction's row`);
      }),
    ),
  );
  const rows = await db().query<{ id: number; total: number }>('SELECT id, total FROM ledger ORDER BY id', {
    type: QueryTypes.SELECT,
  });
  t.deepEqual(
    rows,
    Array.from({ length: 25 }, (_, i) => ({ id: i, total: big(i).length })),
  );
});

// pglite-socket 0.2's own server fails this: batches split over TCP chunks
// interleave and bind each other's unnamed statement (issue #1046).
test.serial('concurrent queries of different shapes with large parameters get their own results', async (t) => {
  const payload = (i: number): string => `q${i}-`.padEnd(300_000, 'y');
  const results = await Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const rows =
        i % 2 === 0
          ? await db().query<{ n: number; s: string }>('SELECT $1::int AS n, $2::text AS s', {
              bind: [i, payload(i)],
              type: QueryTypes.SELECT,
            })
          : await db().query<{ n: number; s: string }>('SELECT $2::int AS n, $1::text AS s, 1 AS extra', {
              bind: [payload(i), i],
              type: QueryTypes.SELECT,
            });
      return rows[0].n === i && rows[0].s === payload(i);
    }),
  );
  t.is(results.filter((ok) => !ok).length, 0);
});

test.serial('a client that drops mid-transaction is rolled back and blocks no one', async (t) => {
  const other = await connectDatabase({ url: embedded?.url ?? '', pool: { max: 2 } });
  extraInstances.push(other);
  const raw = (await other.connectionManager.getConnection({ type: 'write' })) as {
    query(text: string): Promise<unknown>;
  };
  await raw.query('BEGIN');
  await raw.query("INSERT INTO ledger (id, payload, total) VALUES (1000, 'never committed', 0)");
  await other.connectionManager.destroyConnection(raw); // the socket closes with the transaction open

  const rows = await db().query('SELECT 1 FROM ledger WHERE id = 1000', { type: QueryTypes.SELECT });
  t.is(rows.length, 0);
});

test.serial('the migrations fixture applies; a failing one names its file and keeps the earlier ones', async (t) => {
  const [first, concurrent] = await Promise.all([runMigrations(db(), pkgA), runMigrations(db(), pkgA)]);
  t.deepEqual([...first.applied, ...concurrent.applied], [
    '001-create',
    '002-add-note',
    '003-seed',
    '004-index-concurrently',
  ]);
  t.deepEqual((await runMigrations(db(), pkgA)).applied, []);

  const error = await t.throwsAsync(runMigrations(db(), pkgB), { instanceOf: MigrationFailedError });
  t.regex(error.message, /Migration 002-broken\.ts of package pkg-b failed/);
  t.deepEqual(await pendingMigrations(db(), pkgB), ['002-broken', '003-never']);
  const partial = await db().query("SELECT to_regclass('pkg_b_partial')::text AS found", { type: QueryTypes.SELECT });
  t.deepEqual(partial, [{ found: null }]);
});

test.serial('a second opener of the data directory is refused, in this process and in another', async (t) => {
  const here = await t.throwsAsync(startEmbeddedPostgres({ dataDir }));
  t.regex(here.message, /already open in this process/);

  const embeddedModule = new URL('../kernel/db/embedded.ts', import.meta.url).href;
  const script = `
    import { startEmbeddedPostgres } from ${JSON.stringify(embeddedModule)};
    try { await startEmbeddedPostgres({ dataDir: process.env.DATA_DIR_UNDER_TEST }); console.log('OPENED'); }
    catch (error) { console.log(error.message); }
  `;
  const output = await runNode(script, { DATA_DIR_UNDER_TEST: dataDir });
  t.regex(output, new RegExp(`in use by process ${process.pid}`));
  t.false(output.includes('OPENED'));
});

test.serial('close and re-open keeps the data; a lock left by a dead process is taken over', async (t) => {
  await db().close();
  sequelize = undefined;
  await embedded?.close();
  embedded = undefined;
  t.false(existsSync(join(dataDir, DATA_DIR_LOCK_FILE)), 'close releases the lock');

  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  writeFileSync(join(dataDir, DATA_DIR_LOCK_FILE), JSON.stringify({ pid: deadPid }));

  embedded = await startEmbeddedPostgres({ dataDir });
  sequelize = await connectDatabase({ url: embedded.url });
  const [ledger] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM ledger', {
    type: QueryTypes.SELECT,
  });
  t.is(ledger.n, 25);
  const items = await db().query('SELECT title, note FROM pkg_a_items', { type: QueryTypes.SELECT });
  t.deepEqual(items, [{ title: 'seeded', note: 'from 003' }]);
  t.deepEqual(await pendingMigrations(db(), pkgA), []);
  const nearest = await db().query<{ id: string }>(
    'SELECT id FROM docs ORDER BY embedding <=> $1::real[]::vector LIMIT 1',
    { bind: [[1, 2, 3]], type: QueryTypes.SELECT },
  );
  t.deepEqual(nearest, [{ id: 'same' }]);
});

function runNode(script: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', () => resolve(output)));
}
