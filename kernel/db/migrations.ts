import { basename } from 'node:path';
import type { Sequelize } from 'sequelize';
import { Umzug, type RunnableMigration } from 'umzug';
import {
  listMigrationFiles,
  loadMigrationModule,
  type MigrationContext,
  type MigrationFile,
  type MigrationPackage,
} from './migration-files.ts';
import { withMigrationLock, type LockBusyListener } from './migration-lock.ts';
import { ensureMigrationsTable, KernelMigrationStorage } from './migration-storage.ts';

/**
 * Per-package schema migrations (umzug 3). A package keeps its migrations in
 * one folder; files run in file-name order, each once, recorded in
 * kernel_migrations under the package's name. Each migration runs in its own
 * transaction (unless the file exports `transaction = false`), so a failure
 * leaves the earlier ones applied and nothing of the failing one.
 */

export type { MigrationContext, MigrationModule, MigrationPackage } from './migration-files.ts';

export class MigrationFailedError extends Error {
  readonly packageName: string;
  readonly file: string;

  constructor(packageName: string, file: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Migration ${file} of package ${packageName} failed: ${reason}`, { cause });
    this.name = 'MigrationFailedError';
    this.packageName = packageName;
    this.file = file;
  }
}

export interface RunMigrationsOptions {
  /** Told each time another node holds this package's migration lock (for a log line). */
  onLockBusy?: LockBusyListener;
}

/** Applies the package's pending migrations in order; returns the names applied by this call. */
export async function runMigrations(
  sequelize: Sequelize,
  pkg: MigrationPackage,
  options: RunMigrationsOptions = {},
): Promise<{ applied: string[] }> {
  assertPackage(pkg);
  const files = await listMigrationFiles(pkg);
  return withMigrationLock(sequelize, pkg.name, async () => {
    await ensureMigrationsTable(sequelize);
    const storage = new KernelMigrationStorage<MigrationContext>(sequelize, pkg.name);
    const umzug = createUmzug(sequelize, pkg, files, storage);
    try {
      const applied = await umzug.up();
      return { applied: applied.map((migration) => migration.name) };
    } catch (error) {
      throw unwrapUmzugError(error);
    } finally {
      await storage.rollbackUnlogged();
    }
  }, options.onLockBusy);
}

/** Names of the package's migrations not yet applied (for the readiness check). */
export async function pendingMigrations(sequelize: Sequelize, pkg: MigrationPackage): Promise<string[]> {
  assertPackage(pkg);
  const files = await listMigrationFiles(pkg);
  const storage = new KernelMigrationStorage<MigrationContext>(sequelize, pkg.name);
  const pending = await createUmzug(sequelize, pkg, files, storage).pending();
  return pending.map((migration) => migration.name);
}

function createUmzug(
  sequelize: Sequelize,
  pkg: MigrationPackage,
  files: MigrationFile[],
  storage: KernelMigrationStorage<MigrationContext>,
): Umzug<MigrationContext> {
  const context: MigrationContext = { sequelize, queryInterface: sequelize.getQueryInterface() };
  const migrations: Array<RunnableMigration<MigrationContext>> = files.map((file) => ({
    name: file.name,
    path: file.path,
    up: async () => {
      try {
        await applyMigration(context, pkg, file, storage);
      } catch (error) {
        throw new MigrationFailedError(pkg.name, basename(file.path), error);
      }
    },
  }));
  return new Umzug<MigrationContext>({ migrations, context, storage, logger: undefined });
}

async function applyMigration(
  context: MigrationContext,
  pkg: MigrationPackage,
  file: MigrationFile,
  storage: KernelMigrationStorage<MigrationContext>,
): Promise<void> {
  const migration = await loadMigrationModule(pkg.name, file);
  if (!migration.transaction) {
    await migration.up({ context });
    return;
  }
  const transaction = await context.sequelize.transaction();
  try {
    await migration.up({ context: { ...context, transaction } });
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
  storage.handOver(file.name, transaction); // committed with its kernel_migrations row
}

/** umzug wraps errors thrown by up(); give callers the error that names package and file. */
function unwrapUmzugError(error: unknown): unknown {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current instanceof MigrationFailedError) return current;
  }
  return error;
}

function assertPackage(pkg: MigrationPackage): void {
  if (typeof pkg.name !== 'string' || pkg.name.trim() === '') {
    throw new Error('A migration package needs a non-empty name');
  }
  if (typeof pkg.dir !== 'string' || pkg.dir === '') {
    throw new Error(`Migration package ${pkg.name} needs the folder of its migration files (dir)`);
  }
}
