import { QueryTypes, Sequelize } from 'sequelize';
import { v7 } from 'uuid';
import { TASK_STATUSES } from '../../plugins/tasks/domain/state-machine.ts';

/**
 * Fills the tasks tables the way the API would (one "created" history entry per task), in
 * multi-row INSERTs, fast enough for 100,000 tasks. The counters are kept by the package's own
 * triggers. Statuses are spread evenly, priorities 1-5, creation times over the last 90 days.
 */
export async function seedTasks(db: Sequelize, opts: { entityId: string; workspaces: string[]; count: number; batch?: number }): Promise<void> {
  const batch = opts.batch ?? 1000;
  const now = Date.now();
  for (let start = 0; start < opts.count; start += batch) {
    const tasks: Record<string, unknown>[] = [];
    const history: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(opts.count, start + batch); i++) {
      const id = v7();
      const created_at = new Date(now - ((i * 7919) % (90 * 86_400)) * 1000).toISOString();
      const title = `Task ${i}: ${i % 3 === 0 ? 'invoice' : 'follow-up'} for customer ${i % 997}`;
      tasks.push({
        id,
        entity_id: opts.entityId,
        workspace_id: opts.workspaces[i % opts.workspaces.length],
        title,
        description: `Details of task ${i}`,
        status: TASK_STATUSES[i % TASK_STATUSES.length],
        priority: (i % 5) + 1,
        created_by: 'u-owner',
        created_at,
      });
      history.push({ id: v7(), entity_id: opts.entityId, task_id: id, changes: [{ field: 'title', from: null, to: title }], created_at });
    }
    await db.query(
      `INSERT INTO tasks (id, entity_id, workspace_id, title, description, status, priority, created_by, created_at, updated_at)
       SELECT x.id, x.entity_id, x.workspace_id, x.title, x.description, x.status, x.priority, x.created_by, x.created_at, x.created_at
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, entity_id text, workspace_id uuid, title text, description text, status text, priority smallint, created_by text, created_at timestamptz)`,
      { bind: [JSON.stringify(tasks)] },
    );
    await db.query(
      `INSERT INTO task_history (id, entity_id, task_id, action, actor_type, actor_id, changes, created_at)
       SELECT x.id, x.entity_id, x.task_id, 'created', 'user', 'u-owner', x.changes, x.created_at
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, entity_id text, task_id uuid, changes jsonb, created_at timestamptz)`,
      { bind: [JSON.stringify(history)] },
    );
  }
  for (const table of ['tasks', 'task_history', 'task_status_counts']) await db.query(`ANALYZE ${table}`);
}

/** Ids of tasks in one of `statuses` (for the moves). */
export async function taskIdsIn(db: Sequelize, entityId: string, statuses: string[], limit: number): Promise<{ id: string; status: string }[]> {
  return db.query<{ id: string; status: string }>('SELECT id, status FROM tasks WHERE entity_id = $1 AND status = ANY($2::varchar[]) ORDER BY id LIMIT $3', {
    bind: [entityId, statuses, limit],
    type: QueryTypes.SELECT,
  });
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement, as text lines. */
export async function explain(db: Sequelize, sql: string, bind: unknown[]): Promise<string[]> {
  const rows = await db.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, { bind, type: QueryTypes.SELECT });
  return rows.map((r) => r['QUERY PLAN']);
}

export async function countRows(db: Sequelize, sql: string, bind: unknown[] = []): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(sql, { bind, type: QueryTypes.SELECT });
  return Number(row.n);
}
