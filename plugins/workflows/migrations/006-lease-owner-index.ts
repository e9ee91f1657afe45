import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Every lease renewal (engine/worker.ts LeaseKeeper, a few times per lease on every node)
 * finds the running runs of one holder: `lease_owner = $1 AND status = 'running'`. Without an
 * index that was a scan of every unfinished run. Partial, like the statement: finished runs
 * hold no lease. A step commit changes neither column, so it stays a HOT update.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query("CREATE INDEX workflow_runs_lease_owner ON workflow_runs (lease_owner) WHERE status = 'running'", { transaction });
}
