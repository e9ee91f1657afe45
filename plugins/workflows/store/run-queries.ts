import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { defineKeyset, keysetPage, type PageStart } from '../../../kernel/tenancy/cursor.ts';
import type { Sql } from './sql.ts';
import type { ReceiptRow, RunRow } from './run-types.ts';
import type { VersionSnapshots } from './version-snapshots.ts';
import { RECEIPTS_SQL } from './runs.ts';

export interface RunFilter {
  workflow_id?: string;
  binding_id?: string;
  workspace_id?: string;
  status?: string;
  trigger_type?: string;
}

const LIST_COLUMNS = `id, entity_id, workflow_id, workflow_version, binding_id, workspace_id, owner_id, trigger_type, status, output, error, pause, retry_of,
  root_run_id, retry_from_step, invalidated, lineage_attempt, recoveries, inline, created_at, started_at, finished_at`;

/** Run history order: newest first. */
export const RUNS_KEYSET = defineKeyset('workflow_runs', [
  { expr: 'created_at', type: 'timestamptz', descending: true },
  { expr: 'id', type: 'uuid', descending: true },
]);

export interface AgentRunFilter {
  status?: string;
  workspace_id?: string;
  agent_id?: string;
  task_id?: string;
  conversation_id?: string;
  run_id?: string;
}

/** Reads of runs for the API, always within the caller's entity. */
export class RunQueries {
  constructor(
    private readonly sql: Sql,
    private readonly versions: VersionSnapshots,
  ) {}

  /** The run with its snapshot (store/version-snapshots.ts). */
  async find(entityId: string, id: string): Promise<RunRow | undefined> {
    if (!isUuid(id)) return undefined;
    return this.versions.fill(await this.sql.one<RunRow>('SELECT * FROM workflow_runs WHERE entity_id = $1 AND id = $2', [entityId, id], 'wf_run_find'));
  }

  async get(entityId: string, id: string): Promise<RunRow> {
    const row = await this.find(entityId, id);
    if (!row) throw ERRORS.NOT_FOUND(`No workflow run with id '${id}'.`, { resource: 'workflow_run', id });
    return row;
  }

  /** A page of runs, newest first (limit + 1 rows with their keys, for cursorPage), and the total under the filter. */
  async list(entityId: string, filter: RunFilter, page: PageStart): Promise<{ items: RunRow[]; total: number }> {
    // agent runs (trigger_type 'agent', started by the agent runtime) are listed as executions, not here
    const where = filter.trigger_type === undefined ? ['entity_id = $1', "trigger_type <> 'agent'"] : ['entity_id = $1'];
    const params: unknown[] = [entityId];
    for (const key of ['workflow_id', 'binding_id', 'workspace_id', 'status', 'trigger_type'] as const) {
      const value = filter[key];
      if (value === undefined) continue;
      params.push(value);
      where.push(`${key}::text = $${params.length}`);
    }
    // one statement, so the page and its total agree even while runs are being created
    const { rows, total } = await keysetPage<RunRow>((text, bind) => this.sql.rows(text, bind), { columns: LIST_COLUMNS, from: 'workflow_runs', where: where.join(' AND '), bind: params, keyset: RUNS_KEYSET, page });
    return { items: rows, total };
  }

  /**
   * Agent runs (the agent runtime's executions) with filters on what their trigger names: the
   * agent, task and conversation. One statement for the page and its total.
   */
  async agentRuns(entityId: string, filter: AgentRunFilter, limit: number, offset: number): Promise<{ items: (RunRow & { rounds: number; tool_calls: number })[]; total: number }> {
    const where = ["r.entity_id = $1", "r.trigger_type = 'agent'"];
    const params: unknown[] = [entityId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.status !== undefined) add('r.status::text = ?', filter.status);
    if (filter.workspace_id !== undefined) add('r.workspace_id::text = ?', filter.workspace_id);
    if (filter.agent_id !== undefined) add("r.trigger->>'agent_id' = ?", filter.agent_id);
    if (filter.task_id !== undefined) add("r.trigger->>'task_id' = ?", filter.task_id);
    if (filter.conversation_id !== undefined) add("r.trigger->>'conversation_id' = ?", filter.conversation_id);
    if (filter.run_id !== undefined) add('r.id::text = ?', filter.run_id);
    const rows = await this.sql.rows<RunRow & { rounds: string; tool_calls: string; total_count: string }>(
      `SELECT ${LIST_COLUMNS.replace(/(\w+)/g, 'r.$1')}, r.trigger, count(*) OVER () AS total_count,
         (SELECT count(*) FROM workflow_step_receipts s WHERE s.run_id = r.id AND s.step_id LIKE '%:r%.model') AS rounds,
         (SELECT count(*) FROM workflow_step_receipts s WHERE s.run_id = r.id AND s.step_id LIKE '%:r%.tool.%') AS tool_calls
       FROM workflow_runs r WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit} OFFSET ${offset}`,
      params,
    );
    return { items: rows.map((r) => ({ ...r, rounds: Number(r.rounds), tool_calls: Number(r.tool_calls) })), total: Number(rows[0]?.total_count ?? 0) };
  }

  async receipts(runId: string): Promise<ReceiptRow[]> {
    return this.sql.rows<ReceiptRow>(RECEIPTS_SQL, [runId], 'wf_receipts');
  }

  /** Durable events after a seq (SSE replay for Last-Event-ID). */
  async eventsAfter(runId: string, seq: number): Promise<RunEventFrame[]> {
    const rows = await this.sql.rows<RunEventFrame>('SELECT seq, type, data FROM workflow_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq', [runId, seq], 'wf_events_after');
    return unpackEvents(rows, seq);
  }

  /**
   * The run's status (undefined: no such run of the entity) and its durable events after a seq,
   * read together (one statement, one snapshot): what a new follower of the run needs first.
   */
  async statusAndEventsAfter(entityId: string, runId: string, seq: number): Promise<{ status: string | undefined; events: RunEventFrame[] }> {
    const rows = await this.sql.rows<{ status: string; seq: number | null; type: string; data: Record<string, unknown> }>(
      `SELECT r.status, e.seq, e.type, e.data FROM workflow_runs r LEFT JOIN workflow_run_events e ON e.run_id = r.id AND e.seq > $3
        WHERE r.entity_id = $1 AND r.id = $2 ORDER BY e.seq`,
      [entityId, runId, seq],
      'wf_status_and_events_after',
    );
    return { status: rows[0]?.status, events: unpackEvents(rows.filter((r): r is RunEventFrame & { status: string } => r.seq !== null), seq) };
  }

  /** Every run of a retry lineage, oldest first. */
  async family(entityId: string, rootId: string): Promise<RunRow[]> {
    return this.sql.rows<RunRow>(`SELECT ${LIST_COLUMNS} FROM workflow_runs WHERE entity_id = $1 AND root_run_id = $2 ORDER BY lineage_attempt, created_at`, [entityId, rootId]);
  }

  async carriedCounts(runIds: string[]): Promise<Map<string, { carried: number; steps: number }>> {
    if (runIds.length === 0) return new Map();
    const rows = await this.sql.rows<{ run_id: string; carried: string; steps: string }>(
      'SELECT run_id, count(*) FILTER (WHERE carried_from IS NOT NULL) AS carried, count(*) AS steps FROM workflow_step_receipts WHERE run_id = ANY($1::uuid[]) GROUP BY run_id',
      [runIds],
    );
    return new Map(rows.map((r) => [r.run_id, { carried: Number(r.carried), steps: Number(r.steps) }]));
  }
}

export interface RunEventFrame {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/** Stored event rows as the frames after `seq`: a row may hold several frames, the last at the row's seq (store/runs.ts packEvents). */
function unpackEvents(rows: RunEventFrame[], seq: number): RunEventFrame[] {
  const frames: RunEventFrame[] = [];
  for (const row of rows) {
    if (row.type === 'frames') {
      const packed = row.data.frames as { type: string; data: Record<string, unknown> }[];
      packed.forEach((f, i) => {
        const at = row.seq - packed.length + 1 + i;
        if (at > seq) frames.push({ seq: at, type: f.type, data: f.data });
      });
    } else if (row.type === 'step') {
      if (row.seq - 1 > seq) frames.push({ seq: row.seq - 1, type: 'step.started', data: row.data.started as Record<string, unknown> });
      frames.push({ seq: row.seq, type: 'step.finished', data: row.data.finished as Record<string, unknown> });
    } else frames.push({ seq: row.seq, type: row.type, data: row.data });
  }
  return frames;
}
