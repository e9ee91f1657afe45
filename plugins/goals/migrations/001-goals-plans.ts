import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Goals and plans. Workspaces, agents and tasks belong to other packages: no foreign keys to
 * them (checked through the broker; a deleted workspace's rows go on `workspace.deleted`).
 * A deleted goal leaves its plans, without the goal.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE goals (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workspace_id uuid NOT NULL,
      title varchar(200) NOT NULL,
      objective text NOT NULL CHECK (char_length(objective) BETWEEN 1 AND 10000),
      metrics jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(metrics) = 'array' AND jsonb_array_length(metrics) <= 20),
      status varchar(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'achieved', 'abandoned')),
      agent_id uuid,
      due_at timestamptz,
      created_by varchar(128),
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX goals_entity_created ON goals (entity_id, created_at DESC, id DESC)',
    'CREATE INDEX goals_entity_workspace ON goals (entity_id, workspace_id)',
    `CREATE TABLE plans (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workspace_id uuid NOT NULL,
      goal_id uuid REFERENCES goals (id) ON DELETE SET NULL,
      task_id uuid,
      agent_id uuid NOT NULL,
      run_id varchar(64),
      summary text NOT NULL CHECK (char_length(summary) BETWEEN 1 AND 10000),
      steps jsonb NOT NULL CHECK (jsonb_typeof(steps) = 'array'),
      status varchar(16) NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'superseded', 'completed')),
      requires_approval boolean NOT NULL,
      decided_by varchar(128),
      decided_at timestamptz,
      decision_comment text,
      created_by varchar(128),
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX plans_entity_created ON plans (entity_id, created_at DESC, id DESC)',
    'CREATE INDEX plans_entity_workspace ON plans (entity_id, workspace_id)',
    'CREATE INDEX plans_goal ON plans (goal_id) WHERE goal_id IS NOT NULL',
    'CREATE INDEX plans_entity_task ON plans (entity_id, task_id) WHERE task_id IS NOT NULL',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
