import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/** The in-app inbox: one row per notification, the entity's (or one user's), newest first. */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE notifications (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      workspace_id varchar(64),
      recipient_id varchar(128),
      title varchar(200) NOT NULL,
      message text NOT NULL,
      source jsonb NOT NULL DEFAULT '{}',
      read_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX notifications_entity_created ON notifications (entity_id, created_at DESC, id DESC)',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
