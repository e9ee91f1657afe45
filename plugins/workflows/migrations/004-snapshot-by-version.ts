import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * A run's snapshot is its definition version (workflow_versions, immutable), read from there,
 * instead of a copy of the definition in every run row: a busy workflow wrote its whole
 * definition again with each run (the largest part of a new run's row, its WAL and its JSON).
 * `workflow_runs.snapshot` stays for the runs that already hold a copy, and for a run whose
 * snapshot is not a saved version; it is NULL for the others (store/version-snapshots.ts).
 *
 * A deleted workflow's versions therefore stay: they are its runs' snapshots, and those runs
 * stay readable and retryable. A version row is never changed, so its foreign key (which
 * deleted the versions with the workflow) goes.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    'ALTER TABLE workflow_runs ALTER COLUMN snapshot DROP NOT NULL',
    'ALTER TABLE workflow_versions DROP CONSTRAINT IF EXISTS workflow_versions_workflow_id_fkey',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
