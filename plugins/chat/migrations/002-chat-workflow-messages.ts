import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * An assistant message answered by a run of the workspace's chat entrypoint (a workflow
 * binding) names that workflow: its stream then shows the run's steps, and its text falls back
 * to the run's output when no agent spoke.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query('ALTER TABLE chat_messages ADD COLUMN workflow_id uuid', { transaction });
}
