import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { MigrationParams, UmzugStorage } from 'umzug';

/**
 * umzug storage over one table shared by every package:
 * kernel_migrations (package, name, applied_at), keyed by (package, name).
 *
 * A migration that runs in a transaction hands that still-open transaction
 * over (`handOver`) before umzug calls logMigration, which records the row in
 * it and commits: the schema change and its record land together or not at all.
 */

export const MIGRATIONS_TABLE = 'kernel_migrations';

export async function ensureMigrationsTable(sequelize: Sequelize): Promise<void> {
  const create = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
    package text NOT NULL,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (package, name)
  )`;
  try {
    await sequelize.query(create);
  } catch (error) {
    // Two packages creating the table at once: one wins with a duplicate
    // catalog row (23505) or duplicate table (42P07); the table exists then.
    const code = (error as { original?: { code?: unknown } }).original?.code;
    if (code !== '23505' && code !== '42P07') throw error;
  }
}

export async function migrationsTableExists(sequelize: Sequelize): Promise<boolean> {
  const rows = await sequelize.query<{ found: string | null }>(`SELECT to_regclass($1)::text AS found`, {
    bind: [MIGRATIONS_TABLE],
    type: QueryTypes.SELECT,
  });
  return rows[0]?.found != null;
}

export class KernelMigrationStorage<Ctx> implements UmzugStorage<Ctx> {
  private readonly sequelize: Sequelize;
  private readonly packageName: string;
  private readonly openTransactions = new Map<string, Transaction>();

  constructor(sequelize: Sequelize, packageName: string) {
    this.sequelize = sequelize;
    this.packageName = packageName;
  }

  /** Called by a migration's runner with its transaction, still open, after up() succeeded. */
  handOver(name: string, transaction: Transaction): void {
    this.openTransactions.set(name, transaction);
  }

  async logMigration({ name }: MigrationParams<Ctx>): Promise<void> {
    const transaction = this.openTransactions.get(name);
    this.openTransactions.delete(name);
    try {
      await this.sequelize.query(`INSERT INTO ${MIGRATIONS_TABLE} (package, name, applied_at) VALUES ($1, $2, now())`, {
        bind: [this.packageName, name],
        transaction,
      });
    } catch (error) {
      await transaction?.rollback();
      throw new Error(`Could not record migration ${name} of package ${this.packageName}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    await transaction?.commit();
  }

  async unlogMigration({ name }: MigrationParams<Ctx>): Promise<void> {
    await this.sequelize.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE package = $1 AND name = $2`, {
      bind: [this.packageName, name],
    });
  }

  async executed(): Promise<string[]> {
    if (!(await migrationsTableExists(this.sequelize))) return [];
    const rows = await this.sequelize.query<{ name: string }>(
      `SELECT name FROM ${MIGRATIONS_TABLE} WHERE package = $1 ORDER BY name`,
      { bind: [this.packageName], type: QueryTypes.SELECT },
    );
    return rows.map((row) => row.name);
  }

  /** Rolls back anything handed over but never logged (umzug stopped in between). */
  async rollbackUnlogged(): Promise<void> {
    const leftovers = [...this.openTransactions.values()];
    this.openTransactions.clear();
    for (const transaction of leftovers) await transaction.rollback().catch(() => {});
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
