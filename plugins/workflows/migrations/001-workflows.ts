import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Definitions (with every saved version), bindings, runs, per-step receipts and the run event
 * log that SSE streams replay. Runs keep their own snapshot of the definition, so they have
 * no foreign key to it: deleting a definition leaves its history readable. Receipts and
 * events carry no foreign key to their run either: the check cost a third of each step's
 * commit (it locks the run row again); they are only written by the statement that updates
 * their run, and deleted with it (store/bindings.ts removeWorkspace).
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE workflows (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      name varchar(200) NOT NULL,
      description text NOT NULL DEFAULT '',
      trigger_type varchar(32) NOT NULL,
      steps jsonb NOT NULL,
      variables jsonb NOT NULL DEFAULT '{}',
      version integer NOT NULL DEFAULT 1,
      created_by varchar(128),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX workflows_entity_created ON workflows (entity_id, created_at DESC, id DESC)',
    `CREATE TABLE workflow_versions (
      workflow_id uuid NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
      version integer NOT NULL,
      entity_id varchar(64) NOT NULL,
      definition jsonb NOT NULL,
      created_by varchar(128),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workflow_id, version)
    )`,
    `CREATE TABLE workflow_bindings (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workflow_id uuid NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL,
      trigger_type varchar(32) NOT NULL CHECK (trigger_type IN ('manual', 'webhook', 'schedule', 'event', 'workspace_event')),
      trigger jsonb NOT NULL DEFAULT '{}',
      event_name varchar(200),
      variables jsonb NOT NULL DEFAULT '{}',
      enabled boolean NOT NULL DEFAULT true,
      chat_entrypoint boolean NOT NULL DEFAULT false,
      webhook_token_hash char(64) UNIQUE,
      created_by varchar(128),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX workflow_bindings_entity ON workflow_bindings (entity_id, created_at DESC, id DESC)',
    'CREATE INDEX workflow_bindings_events ON workflow_bindings (entity_id, event_name) WHERE enabled AND event_name IS NOT NULL',
    `CREATE TABLE workflow_runs (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workflow_id uuid NOT NULL,
      workflow_version integer NOT NULL,
      binding_id uuid,
      workspace_id uuid,
      owner_id varchar(128),
      trigger_type varchar(32) NOT NULL,
      status varchar(16) NOT NULL CHECK (status IN ('pending', 'running', 'paused', 'completed', 'failed', 'cancelled')),
      snapshot jsonb NOT NULL,
      trigger jsonb,
      variables jsonb NOT NULL DEFAULT '{}',
      output jsonb,
      error jsonb,
      pause jsonb,
      retry_of uuid,
      root_run_id uuid NOT NULL,
      retry_from_step varchar(128),
      invalidated jsonb,
      lineage_attempt integer NOT NULL DEFAULT 1,
      seq integer NOT NULL DEFAULT 0,
      lease_owner varchar(200),
      lease_expires_at timestamptz,
      recoveries integer NOT NULL DEFAULT 0,
      inline boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    ) WITH (fillfactor = 70)`,
    'CREATE INDEX workflow_runs_entity_created ON workflow_runs (entity_id, created_at DESC, id DESC)',
    'CREATE INDEX workflow_runs_root ON workflow_runs (root_run_id)',
    "CREATE INDEX workflow_runs_unheld ON workflow_runs (lease_expires_at) WHERE status IN ('pending', 'running', 'paused')",
    `CREATE TABLE workflow_step_receipts (
      run_id uuid NOT NULL,
      step_id varchar(128) NOT NULL,
      entity_id varchar(64) NOT NULL,
      status varchar(24) NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'skipped', 'waiting', 'needs_reconciliation', 'reconciled')),
      attempt integer NOT NULL DEFAULT 1,
      input jsonb,
      output jsonb,
      error jsonb,
      taken jsonb,
      directive jsonb,
      uncertain boolean NOT NULL DEFAULT false,
      carried_from uuid,
      started_at timestamptz,
      finished_at timestamptz,
      execute_ms real,
      ord bigserial,
      PRIMARY KEY (run_id, step_id)
    )`,
    `CREATE TABLE workflow_run_events (
      run_id uuid NOT NULL,
      seq integer NOT NULL,
      type varchar(32) NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, seq)
    )`,
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
