import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * The last heartbeat of each worker. Workers belong to the deployment, not to a tenant, so the
 * table has no entity_id. One row per worker id, overwritten by each heartbeat.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query(
    `CREATE TABLE worker_heartbeats (
       worker_id    varchar(128) PRIMARY KEY,
       roles        jsonb        NOT NULL DEFAULT '[]'::jsonb,
       queues       jsonb        NOT NULL DEFAULT '[]'::jsonb,
       concurrency  jsonb        NOT NULL DEFAULT '{}'::jsonb,
       version      varchar(64),
       hostname     varchar(255),
       in_flight    integer      NOT NULL DEFAULT 0,
       last_seen_at timestamptz  NOT NULL DEFAULT now(),
       meta         jsonb        NOT NULL DEFAULT '{}'::jsonb
     )`,
    { transaction },
  );
}
