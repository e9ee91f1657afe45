import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Keys get an optional per-key `base_url` (required for the new provider `openai_compatible`),
 * and every recorded model call says what it was for (`purpose`) and for whom (workspace,
 * agent, run), so usage can be attributed.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    'ALTER TABLE model_api_keys ADD COLUMN base_url varchar(2048)',
    'ALTER TABLE model_api_keys DROP CONSTRAINT IF EXISTS model_api_keys_provider_check',
    "ALTER TABLE model_api_keys ADD CONSTRAINT model_api_keys_provider_check CHECK (provider IN ('openai', 'anthropic', 'openai_compatible'))",
    "ALTER TABLE model_api_keys ADD CONSTRAINT model_api_keys_compatible_base_url CHECK (provider <> 'openai_compatible' OR base_url IS NOT NULL)",
    'ALTER TABLE model_api_keys ALTER COLUMN provider TYPE varchar(32)',
    'ALTER TABLE model_calls ALTER COLUMN provider TYPE varchar(32)',
    "ALTER TABLE model_calls ADD COLUMN purpose varchar(64) NOT NULL DEFAULT 'chat'",
    'ALTER TABLE model_calls ADD COLUMN workspace_id varchar(64)',
    'ALTER TABLE model_calls ADD COLUMN agent_id varchar(64)',
    'ALTER TABLE model_calls ADD COLUMN run_id varchar(64)',
    'CREATE INDEX model_calls_entity_workspace ON model_calls (entity_id, workspace_id, created_at) WHERE workspace_id IS NOT NULL',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
