import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/** A fourth role, `viewer`: reads everything of its entity and changes nothing (docs/roles.md). */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  await sequelize.query(
    "ALTER TABLE users DROP CONSTRAINT users_role_check, ADD CONSTRAINT users_role_check CHECK (role IN ('owner', 'admin', 'member', 'viewer'))",
    { transaction },
  );
}
