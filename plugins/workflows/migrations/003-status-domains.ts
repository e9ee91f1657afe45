import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * The run and receipt status columns check their values through a domain instead of a table
 * CHECK constraint: same values, same refusal of any other. PostgreSQL reads a table's CHECK
 * constraints back from their stored text (stringToNode) for every statement that writes the
 * table; with a step commit writing both tables several times per run, that parsing was a tenth
 * of the database's CPU per run. A domain's check is compiled once per connection (type cache).
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE DOMAIN workflow_run_status AS varchar(16)
       CHECK (VALUE IN ('pending', 'running', 'paused', 'completed', 'failed', 'cancelled'))`,
    `CREATE DOMAIN workflow_receipt_status AS varchar(24)
       CHECK (VALUE IN ('running', 'completed', 'failed', 'skipped', 'waiting', 'needs_reconciliation', 'reconciled'))`,
    'ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_status_check, ALTER COLUMN status TYPE workflow_run_status',
    'ALTER TABLE workflow_step_receipts DROP CONSTRAINT workflow_step_receipts_status_check, ALTER COLUMN status TYPE workflow_receipt_status',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
