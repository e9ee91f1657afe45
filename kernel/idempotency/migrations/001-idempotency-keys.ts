import type { MigrationContext } from '../../db/migrations.ts';

/**
 * One row per Idempotency-Key in use: claimed while its request runs (`claim_id` names the
 * claim, so only its own request completes or releases it), then the first response kept
 * for replay until `expires_at`. `scope` is the entity (or, on a public route, the declared
 * path parameter's hash), so two tenants never share a key.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query(
    `CREATE TABLE idempotency_keys (
       scope        varchar(200) NOT NULL,
       key          varchar(255) NOT NULL,
       fingerprint  char(64)     NOT NULL,
       claim_id     uuid         NOT NULL,
       state        varchar(16)  NOT NULL DEFAULT 'in_flight',
       status       smallint,
       content_type varchar(255),
       location     text,
       body         bytea,
       claimed_at   timestamptz  NOT NULL DEFAULT now(),
       expires_at   timestamptz  NOT NULL,
       PRIMARY KEY (scope, key)
     )`,
    { transaction },
  );
  await sequelize.query('CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)', { transaction });
}
