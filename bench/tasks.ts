/**
 * Tasks at scale: 100,000 tasks across 20 workspaces on the machine's PostgreSQL.
 * Targets (issue 5): at 20 connections, p99 < 50 ms for
 *   GET /api/v1/tasks?status=in_progress&workspace=…&limit=50   and   GET /api/v1/tasks/board;
 * 1,000 moves/s sustained with their history written; query plans that use indexes.
 *
 *   node --import tsx bench/tasks.ts [--tasks 100000] [--workspaces 20] [--connections 20]
 *        [--seconds 15] [--warmup 3] [--only list|board|moves] [--profile] [--env KEY=VALUE ...]
 *
 * --profile runs the kernel under --cpu-prof and prints where its CPU time went.
 *
 * The kernel runs in its own process (bench/servers/tasks-kernel.ts) with plugins/tasks,
 * plugins/workspaces and the fixture identity provider; the load comes from this process.
 * Workspaces are created through the API; tasks are inserted in bulk, with their history.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { QueryTypes, Sequelize } from 'sequelize';
import { PROJECT_ROOT } from './lib/kernel-process.ts';
import { startTasksKernel } from './lib/tasks-kernel.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { stopAll, stopGroup } from './lib/processes.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';
import { round } from './lib/stats.ts';
import { countRows, explain, seedTasks, taskIdsIn } from './lib/tasks-seed.ts';
import { runMoves } from './lib/move-load.ts';
import { moveStatement } from '../plugins/tasks/db/move-store.ts';
import { moveRules } from '../plugins/tasks/domain/move-rules.ts';
import { boardItemsQuery, countersQuery, countQuery, DEFAULT_SORT, BOARD_SORT, listQuery } from '../plugins/tasks/db/list-query.ts';

const TOKEN = 'owner-token';
const ENTITY = 'e-1';
const { values: args } = parseArgs({
  options: {
    tasks: { type: 'string', default: '100000' },
    workspaces: { type: 'string', default: '20' },
    connections: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const runs = (part: string) => args.only === undefined || args.only === part;
const taskCount = Number(args.tasks);
const workspaceCount = Number(args.workspaces);
const connections = Number(args.connections);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const extraEnv = Object.fromEntries((args.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

interface AutocannonResult {
  duration: number;
  non2xx: number;
  errors: number;
  '2xx': number;
  latency: { p50: number; p99: number };
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

/** Keep-alive GET load cycling through `paths`; the warm-up window is thrown away. */
async function getLoad(apiUrl: string, paths: string[]) {
  const requests = paths.map((path) => ({ method: 'GET', path, headers: { authorization: `Bearer ${TOKEN}` } }));
  if (warmup > 0) await autocannon({ url: apiUrl, connections, duration: warmup, requests });
  const r = await autocannon({ url: apiUrl, connections, duration: seconds, requests });
  return { reqPerSec: round(r['2xx'] / r.duration, 1), ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, p50Ms: r.latency.p50, p99Ms: r.latency.p99 };
}

async function json(apiUrl: string, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(apiUrl + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The scans a plan makes ("Index Scan using tasks_board", "Seq Scan on task_status_counts"), each once. */
function scansOf(plan: string[]): string[] {
  const scans = plan.map((line) => /((?:Bitmap )?(?:Index Only |Index |Seq )Scan (?:using \S+ )?on \S+)/.exec(line)?.[1]).filter((s): s is string => !!s);
  return [...new Set(scans.map((s) => s.replace(/ tasks_\d+$/, ' tasks')))];
}

/** No sequential scan of a task table (the counters table is a few hundred rows: scanning it is right). */
function usesIndexes(plan: string[]): boolean {
  return !/Seq Scan on (tasks|task_history)\b/.test(plan.join('\n'));
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-tasks-'));
  const dbName = `bench_tasks_${process.pid}_${Date.now()}`;
  const url = databaseUrl(dbName);
  let db: Sequelize | undefined;
  let created = false;
  try {
    createDatabase(dbName);
    created = true;
    const profileDir = join(work, 'profile');
    const profileFlags = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const { apiUrl, proc } = await startTasksKernel(work, { DATABASE_URL: url, DATABASE_POOL_MAX: '20', ...extraEnv }, profileFlags);

    const workspaces: string[] = [];
    for (let i = 0; i < workspaceCount; i++) workspaces.push((await json(apiUrl, '/api/v1/workspaces', { method: 'POST', body: JSON.stringify({ name: `Bench ${i}` }) })).id);
    db = new Sequelize(url, { logging: false, pool: { max: 2 } });
    const seedStart = performance.now();
    await seedTasks(db, { entityId: ENTITY, workspaces, count: taskCount });
    const seedSec = round((performance.now() - seedStart) / 1000, 1);
    const board = await json(apiUrl, '/api/v1/tasks/board');
    if (board.total !== taskCount) throw new Error(`the board counts ${board.total} tasks, not ${taskCount}`);

    const listPaths = workspaces.map((w) => `/api/v1/tasks?status=in_progress&workspace=${w}&limit=50`);
    const idle = { reqPerSec: 0, ok: 0, non2xx: 0, errors: 0, p50Ms: 0, p99Ms: 0 };
    const loadBefore = loadavg()[0];
    // the floor: an authenticated route with no database work, through the same gateway
    const floor = runs('floor') ? await getLoad(apiUrl, ['/api/v1/tasks/constants']) : idle;
    const list = runs('list') ? await getLoad(apiUrl, listPaths) : idle;
    const boardLoad = runs('board') ? await getLoad(apiUrl, ['/api/v1/tasks/board']) : idle;

    const movable = await taskIdsIn(db, ENTITY, ['in_progress', 'on_hold'], connections * 50);
    const historyBefore = await countRows(db, 'SELECT count(*) AS n FROM task_history');
    const moves = runs('moves') ? await runMoves(apiUrl, TOKEN, movable, { connections, durationSec: seconds }) : { movesPerSec: 0, ok: 0, failed: 0, latencyP50Ms: 0, latencyP99Ms: 0 };
    const historyAfter = await countRows(db, 'SELECT count(*) AS n FROM task_history');
    if (args.profile) {
      await stopGroup(proc, 15_000); // a clean exit writes the profile
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) printSummary(summarizeProfile(join(profileDir, file), PROJECT_ROOT));
    }

    const now = new Date();
    const ws = workspaces[0];
    const plans: Record<string, string[]> = {
      list: await explainOf(db, listQuery(ENTITY, { status: ['in_progress'], workspace_id: ws }, DEFAULT_SORT, { limit: 50, offset: 0 }, now)),
      list_total: await explainOf(db, countersQuery(ENTITY, { status: ['in_progress'], workspace_id: ws })),
      board_counts: await explainOf(db, countersQuery(ENTITY, {})),
      board_items: await explainOf(db, boardItemsQuery(ENTITY, {}, ['todo', 'scheduled', 'in_progress', 'needs_attention', 'done'], BOARD_SORT, 10, now)),
      filtered_count: await explainOf(db, countQuery(ENTITY, { workspace_id: ws, priority: [1] }, now)),
      move: await explainMove(db, movable[0]),
    };

    const report = {
      tasks: taskCount,
      workspaces: workspaceCount,
      connections,
      seconds,
      seed_seconds: seedSec,
      machine: { cpus: availableParallelism(), load_average_1m_before: round(loadBefore, 2), load_average_1m_after: round(loadavg()[0], 2) },
      floor_constants_route: floor,
      list,
      board: boardLoad,
      moves: { ...moves, movesPerSec: round(moves.movesPerSec, 1), history_entries_written: historyAfter - historyBefore },
      plans: Object.fromEntries(Object.entries(plans).map(([k, p]) => [k, { scans: scansOf(p), no_seq_scan_of_tasks: usesIndexes(p), execution: p.find((l) => l.startsWith('Execution Time')) }])),
      targets: {
        list_p99_under_50ms: list.p99Ms < 50 && list.non2xx === 0,
        board_p99_under_50ms: boardLoad.p99Ms < 50 && boardLoad.non2xx === 0,
        moves_1000_per_sec: moves.movesPerSec >= 1000 && moves.failed === 0,
        history_per_move: historyAfter - historyBefore === moves.ok,
        plans_use_indexes: Object.values(plans).every(usesIndexes),
      },
    };
    for (const [name, plan] of Object.entries(plans)) console.log(`\n-- plan: ${name}\n${plan.join('\n')}`);
    console.log(`\n${JSON.stringify(report, null, 2)}`);
  } finally {
    await db?.close();
    await stopAll();
    if (created) dropDatabase(dbName);
    rmSync(work, { recursive: true, force: true });
  }
}

async function explainOf(db: Sequelize, q: { sql: string; bind: unknown[] }): Promise<string[]> {
  return explain(db, q.sql, q.bind);
}

/** The plan of one move statement, run for real inside a transaction that is rolled back. */
async function explainMove(db: Sequelize, task: { id: string; status: string }): Promise<string[]> {
  const to = task.status === 'in_progress' ? 'on_hold' : 'in_progress';
  const q = moveStatement({ entityId: ENTITY, taskId: task.id, to, rules: moveRules(to), action: 'move', actor: { type: 'user', id: 'u-owner' }, now: new Date() });
  const transaction = await db.transaction();
  try {
    return (await db.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, { bind: q.bind, type: QueryTypes.SELECT, transaction })).map((r) => r['QUERY PLAN']);
  } finally {
    await transaction.rollback();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
