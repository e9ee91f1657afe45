import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/** Workspaces and their append-only activity log (removed with the workspace by the foreign key). */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE workspaces (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      name varchar(120) NOT NULL,
      description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
      category varchar(64) NOT NULL DEFAULT '',
      status varchar(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
      provider_access varchar(16) NOT NULL DEFAULT 'none' CHECK (provider_access IN ('none', 'granted')),
      archived_at timestamptz,
      operating_model jsonb NOT NULL DEFAULT '{}',
      governance jsonb NOT NULL DEFAULT '{}',
      created_by varchar(128),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      version integer NOT NULL DEFAULT 1
    )`,
    'CREATE INDEX workspaces_entity_created ON workspaces (entity_id, created_at DESC, id DESC)',
    `CREATE TABLE workspace_activity (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      actor_type varchar(16) NOT NULL CHECK (actor_type IN ('user', 'agent', 'system')),
      actor_id varchar(128) NOT NULL,
      kind varchar(100) NOT NULL,
      summary varchar(500) NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL
    )`,
    'CREATE INDEX workspace_activity_feed ON workspace_activity (entity_id, workspace_id, created_at DESC, id DESC)',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
