import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/** Categories (collections), SLA policies and task templates: what tasks refer to. */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE task_categories (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      name varchar(100) NOT NULL,
      description text NOT NULL DEFAULT '',
      icon varchar(64) NOT NULL DEFAULT '',
      color varchar(7) NOT NULL DEFAULT '#6b7280' CHECK (color ~ '^#[0-9a-f]{6}$'),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE UNIQUE INDEX task_categories_entity_name ON task_categories (entity_id, lower(name))',
    `CREATE TABLE task_sla_policies (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      name varchar(100) NOT NULL,
      description text NOT NULL DEFAULT '',
      targets jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE UNIQUE INDEX task_sla_policies_entity_name ON task_sla_policies (entity_id, lower(name))',
    `CREATE TABLE task_templates (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      name varchar(100) NOT NULL,
      title text NOT NULL,
      description text NOT NULL DEFAULT '',
      variables jsonb NOT NULL DEFAULT '[]',
      defaults jsonb NOT NULL DEFAULT '{}',
      created_by varchar(128),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE UNIQUE INDEX task_templates_entity_name ON task_templates (entity_id, lower(name))',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
