import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Model provider keys (the raw key only sealed: kernel/secrets/sealed-box.ts) with at most one
 * default per entity, and one row per successful model call for the token counts of
 * `GET /api/v1/usage/summary` (kept when the key is deleted, so no foreign key).
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE model_api_keys (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      name varchar(120) NOT NULL,
      provider varchar(16) NOT NULL CHECK (provider IN ('openai', 'anthropic')),
      sealed_key text NOT NULL,
      key_prefix varchar(16) NOT NULL,
      default_model varchar(200) NOT NULL,
      is_default boolean NOT NULL DEFAULT false,
      created_by varchar(128),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      rotated_at timestamptz,
      last_used_at timestamptz
    )`,
    'CREATE UNIQUE INDEX model_api_keys_one_default ON model_api_keys (entity_id) WHERE is_default',
    'CREATE INDEX model_api_keys_entity_created ON model_api_keys (entity_id, created_at DESC, id DESC)',
    `CREATE TABLE model_calls (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      api_key_id uuid,
      provider varchar(16) NOT NULL,
      model varchar(200) NOT NULL,
      input_tokens integer NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
      output_tokens integer NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX model_calls_entity_created ON model_calls (entity_id, created_at)',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
