import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Durable approval scopes of `workflow_action_grant` steps: the run owner approved an action
 * once for a binding (or a workflow, for runs without one), until an expiry and for a number of
 * uses. A grant is created only from the approved repeat of the step that asked (its origin run
 * and step are unique, so a repeat of that step creates nothing twice); each use is recorded
 * once per run step. The owner revokes it through the API.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE workflow_action_grants (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      owner_id varchar(128) NOT NULL,
      action varchar(200) NOT NULL,
      workflow_id uuid NOT NULL,
      binding_id uuid,
      max_uses integer,
      uses integer NOT NULL DEFAULT 0,
      expires_at timestamptz,
      revoked_at timestamptz,
      revoked_by varchar(128),
      origin_run_id uuid NOT NULL,
      origin_step_id varchar(128) NOT NULL,
      approved_by varchar(128) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (origin_run_id, origin_step_id)
    )`,
    'CREATE INDEX workflow_action_grants_scope ON workflow_action_grants (entity_id, owner_id, action, workflow_id) WHERE revoked_at IS NULL',
    'CREATE INDEX workflow_action_grants_entity ON workflow_action_grants (entity_id, created_at DESC, id DESC)',
    `CREATE TABLE workflow_action_grant_uses (
      grant_id uuid NOT NULL REFERENCES workflow_action_grants (id) ON DELETE CASCADE,
      run_id uuid NOT NULL,
      step_id varchar(128) NOT NULL,
      used_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (grant_id, run_id, step_id)
    )`,
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
