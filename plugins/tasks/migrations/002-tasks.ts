import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Tasks, their append-only history and execution record, and per-status counters.
 *
 * The status list and the board columns are written out here as they were when this
 * migration was made (a test checks they still match the state machine module); a later
 * change to either needs a new migration.
 */
const STATUSES = ['created', 'proposed', 'pending', 'scheduled', 'in_progress', 'waiting_on_customer', 'on_hold', 'blocked', 'completed', 'cancelled', 'failed'];
const STATUS_LIST = STATUSES.map((s) => `'${s}'`).join(', ');
const BOARD_COLUMN_SQL = `CASE status
  WHEN 'created' THEN 'todo' WHEN 'pending' THEN 'todo' WHEN 'proposed' THEN 'todo'
  WHEN 'scheduled' THEN 'scheduled'
  WHEN 'in_progress' THEN 'in_progress'
  WHEN 'waiting_on_customer' THEN 'needs_attention' WHEN 'on_hold' THEN 'needs_attention'
  WHEN 'blocked' THEN 'needs_attention' WHEN 'failed' THEN 'needs_attention'
  ELSE 'done' END`;

/** Tasks without a workspace are counted under the nil UUID. */
const NO_WORKSPACE = "'00000000-0000-0000-0000-000000000000'::uuid";

export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE tasks (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workspace_id uuid,
      parent_id uuid REFERENCES tasks (id) ON DELETE RESTRICT,
      title varchar(500) NOT NULL,
      description text NOT NULL DEFAULT '',
      status varchar(32) NOT NULL CHECK (status IN (${STATUS_LIST})),
      board_column varchar(16) GENERATED ALWAYS AS (${BOARD_COLUMN_SQL}) STORED,
      priority smallint NOT NULL CHECK (priority BETWEEN 1 AND 5),
      assignee_type varchar(8) CHECK (assignee_type IN ('user', 'agent')),
      assignee_id varchar(128),
      deadline timestamptz,
      category_id uuid REFERENCES task_categories (id) ON DELETE RESTRICT,
      requester varchar(255),
      output_files jsonb NOT NULL DEFAULT '[]',
      sla_policy_id uuid REFERENCES task_sla_policies (id) ON DELETE RESTRICT,
      sla_response_due_at timestamptz,
      sla_resolution_due_at timestamptz,
      responded_at timestamptz,
      resolved_at timestamptz,
      pending_request jsonb,
      delivery_review jsonb,
      evaluation jsonb,
      version integer NOT NULL DEFAULT 1,
      created_by varchar(128),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((assignee_type IS NULL) = (assignee_id IS NULL))
    )`,
    'CREATE INDEX tasks_list_ws_status ON tasks (entity_id, workspace_id, status, created_at DESC, id DESC)',
    'CREATE INDEX tasks_list_status ON tasks (entity_id, status, created_at DESC, id DESC)',
    'CREATE INDEX tasks_list_all ON tasks (entity_id, created_at DESC, id DESC)',
    'CREATE INDEX tasks_board ON tasks (entity_id, board_column, priority, created_at DESC, id DESC)',
    'CREATE INDEX tasks_board_ws ON tasks (entity_id, workspace_id, board_column, priority, created_at DESC, id DESC)',
    'CREATE INDEX tasks_assignee ON tasks (entity_id, assignee_id) WHERE assignee_id IS NOT NULL',
    'CREATE INDEX tasks_category ON tasks (entity_id, category_id) WHERE category_id IS NOT NULL',
    'CREATE INDEX tasks_deadline ON tasks (entity_id, deadline) WHERE deadline IS NOT NULL',
    'CREATE INDEX tasks_sla ON tasks (entity_id, sla_resolution_due_at) WHERE sla_policy_id IS NOT NULL',
    'CREATE INDEX tasks_parent ON tasks (parent_id) WHERE parent_id IS NOT NULL',
    'CREATE INDEX tasks_sla_policy ON tasks (sla_policy_id) WHERE sla_policy_id IS NOT NULL',

    `CREATE TABLE task_history (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      action varchar(32) NOT NULL,
      actor_type varchar(16) NOT NULL,
      actor_id varchar(128),
      changes jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    'CREATE INDEX task_history_task ON task_history (task_id, created_at, id)',
    // append-only: an entry is never edited (it goes only with its task)
    `CREATE FUNCTION task_history_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'task_history is append-only'; END $$`,
    'CREATE TRIGGER task_history_append_only BEFORE UPDATE ON task_history FOR EACH ROW EXECUTE FUNCTION task_history_refuse_update()',

    `CREATE TABLE task_execution_entries (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      kind varchar(32) NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL
    )`,
    'CREATE INDEX task_execution_entries_task ON task_execution_entries (task_id, created_at, id)',

    // Counters per (entity, workspace, status), kept by statement triggers in the same
    // transaction as the change: the board and list totals read them instead of counting rows.
    `CREATE TABLE task_status_counts (
      entity_id varchar(64) NOT NULL,
      workspace_key uuid NOT NULL,
      status varchar(32) NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (entity_id, workspace_key, status)
    )`,
    `CREATE FUNCTION task_status_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP = 'INSERT' THEN
         ${upsertCounts(rowsOf('new_rows', 1))};
       ELSIF TG_OP = 'DELETE' THEN
         ${upsertCounts(rowsOf('old_rows', -1))};
       ELSE
         ${upsertCounts(`${rowsOf('old_rows', -1)} UNION ALL ${rowsOf('new_rows', 1)}`)};
       END IF;
       RETURN NULL;
     END $$`,
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
  // One trigger per operation (a transition table may serve only one event).
  await sequelize.query(
    "CREATE TRIGGER task_status_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_status_counts_apply()",
    { transaction },
  );
  await sequelize.query(
    'CREATE TRIGGER task_status_counts_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_status_counts_apply()',
    { transaction },
  );
  await sequelize.query(
    'CREATE TRIGGER task_status_counts_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_status_counts_apply()',
    { transaction },
  );
}

function rowsOf(table: string, delta: number): string {
  return `SELECT entity_id, COALESCE(workspace_id, ${NO_WORKSPACE}) AS workspace_key, status, ${delta} AS delta FROM ${table}`;
}

/** Adds the summed deltas, locking counter rows in key order so concurrent statements cannot deadlock. */
function upsertCounts(deltas: string): string {
  return `INSERT INTO task_status_counts AS c (entity_id, workspace_key, status, n)
         SELECT entity_id, workspace_key, status, sum(delta) FROM (${deltas}) d
         GROUP BY entity_id, workspace_key, status
         HAVING sum(delta) <> 0
         ORDER BY entity_id, workspace_key, status
         ON CONFLICT (entity_id, workspace_key, status) DO UPDATE SET n = c.n + EXCLUDED.n`;
}
