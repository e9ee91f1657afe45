import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Entities (tenants), their users and bearer tokens. Emails are unique across the server
 * whatever their case (login is by email alone). Tokens are stored only as sha256 hashes.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE entities (
      id varchar(64) PRIMARY KEY,
      name varchar(200) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE users (
      id varchar(64) PRIMARY KEY,
      entity_id varchar(64) NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
      email varchar(254) NOT NULL,
      name varchar(200) NOT NULL DEFAULT '',
      role varchar(16) NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      status varchar(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated')),
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      last_login_at timestamptz
    )`,
    'CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))',
    'CREATE INDEX users_entity_created_idx ON users (entity_id, created_at, id)',
    `CREATE TABLE auth_tokens (
      id varchar(64) PRIMARY KEY,
      user_id varchar(64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      entity_id varchar(64) NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
      token_hash char(64) NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`,
    'CREATE INDEX auth_tokens_user_live_idx ON auth_tokens (user_id) WHERE revoked_at IS NULL',
    'CREATE INDEX auth_tokens_expires_idx ON auth_tokens (expires_at)',
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
