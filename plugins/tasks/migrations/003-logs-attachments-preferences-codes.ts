import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/** Comments (logs), attachments, per-user board preferences and public review codes. */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE task_logs (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      author_type varchar(16) NOT NULL,
      author_id varchar(128),
      body text NOT NULL,
      mentions jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL
    )`,
    'CREATE INDEX task_logs_task ON task_logs (task_id, created_at, id)',
    `CREATE TABLE task_attachments (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      log_id uuid REFERENCES task_logs (id) ON DELETE SET NULL,
      object_key varchar(512) NOT NULL,
      filename varchar(255) NOT NULL,
      content_type varchar(255) NOT NULL,
      declared_content_type varchar(255),
      size bigint NOT NULL,
      uploaded_by varchar(128),
      created_at timestamptz NOT NULL
    )`,
    'CREATE INDEX task_attachments_task ON task_attachments (task_id, created_at, id)',
    `CREATE TABLE task_board_preferences (
      entity_id varchar(64) NOT NULL,
      user_id varchar(128) NOT NULL,
      mode varchar(8) NOT NULL CHECK (mode IN ('board', 'list')),
      visible_columns jsonb NOT NULL,
      column_order jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (entity_id, user_id)
    )`,
    `CREATE TABLE task_public_codes (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      code_hash char(64) NOT NULL UNIQUE,
      label varchar(200) NOT NULL DEFAULT '',
      created_by varchar(128),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX task_public_codes_task ON task_public_codes (task_id, created_at)',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
