import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Child runs of `subworkflow` and `foreach_subworkflow` steps: which run and step started
 * each, its nesting depth (1 for a child of a top-level run) and the hash of the snapshot it
 * runs. The parent's continuation names the same child ids and hash; a resume compares them.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query(
    `CREATE TABLE workflow_run_links (
      child_run_id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      parent_run_id uuid NOT NULL,
      parent_step_id varchar(128) NOT NULL,
      item_index integer NOT NULL DEFAULT 0,
      depth integer NOT NULL,
      snapshot_hash char(64) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    { transaction },
  );
  await sequelize.query('CREATE INDEX workflow_run_links_parent ON workflow_run_links (parent_run_id, parent_step_id, item_index)', { transaction });
}
