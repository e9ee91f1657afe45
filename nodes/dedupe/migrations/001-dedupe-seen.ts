import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Keys a `dedupe` step with scope `binding` has let through, per entity and scope (the binding,
 * or the workflow for runs without one, and the step id). The run and step that first let a key
 * through are kept so a repeat of that same step (a worker took the run over) lets it through
 * again instead of calling it a duplicate.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query(
    `CREATE TABLE node_dedupe_seen (
      entity_id varchar(64) NOT NULL,
      scope varchar(300) NOT NULL,
      key_hash char(64) NOT NULL,
      run_id varchar(64) NOT NULL,
      step_id varchar(128) NOT NULL,
      seen_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (entity_id, scope, key_hash)
    )`,
    { transaction },
  );
  await sequelize.query('CREATE INDEX node_dedupe_seen_age ON node_dedupe_seen (entity_id, scope, seen_at)', { transaction });
}
