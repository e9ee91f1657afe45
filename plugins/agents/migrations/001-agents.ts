import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Agents, entity-wide (workspace_id null) or of one workspace. No foreign keys to other
 * packages' tables: workspaces and model keys are checked through the broker, and a deleted
 * workspace's agents go on `workspace.deleted`. At most one master per workspace.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE agents (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workspace_id uuid,
      name varchar(120) NOT NULL,
      description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
      instructions text NOT NULL DEFAULT '' CHECK (char_length(instructions) <= 100000),
      api_key_id uuid,
      model varchar(200),
      tools jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tools) = 'array' AND jsonb_array_length(tools) <= 100),
      max_rounds integer NOT NULL CHECK (max_rounds BETWEEN 1 AND 100),
      is_master boolean NOT NULL DEFAULT false CHECK (NOT is_master OR workspace_id IS NOT NULL),
      status varchar(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
      version integer NOT NULL DEFAULT 1,
      created_by varchar(128),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE UNIQUE INDEX agents_one_master ON agents (workspace_id) WHERE is_master',
    'CREATE INDEX agents_entity_created ON agents (entity_id, created_at DESC, id DESC)',
    'CREATE INDEX agents_entity_workspace ON agents (entity_id, workspace_id)',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
