import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * The durable documents of `workflow_project` steps: one JSON document per entity and scope
 * (`binding:<id>`, or `workflow:<id>` for runs without a binding), with a version bumped by
 * every change. Changes lock the row (SELECT ... FOR UPDATE), so concurrent runs serialise.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query(
    `CREATE TABLE node_workflow_project (
      entity_id varchar(64) NOT NULL,
      scope varchar(200) NOT NULL,
      document jsonb NOT NULL DEFAULT '{}',
      version integer NOT NULL DEFAULT 0,
      updated_by_run varchar(64),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (entity_id, scope)
    )`,
    { transaction },
  );
}
