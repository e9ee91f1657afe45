import { readdir } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { QueryInterface, Sequelize, Transaction } from 'sequelize';

/** What a migration receives: the shared instance and, unless it opted out, its transaction. */
export interface MigrationContext {
  sequelize: Sequelize;
  queryInterface: QueryInterface;
  /** Pass it to every query (`{ transaction }`) so the migration commits or rolls back as one. */
  transaction?: Transaction;
}

export type MigrationFunction = (params: { context: MigrationContext }) => Promise<unknown> | unknown;

/**
 * The shape of a migration file. `export const transaction = false` runs it
 * outside a transaction, for statements PostgreSQL refuses inside one
 * (CREATE INDEX CONCURRENTLY, ALTER TYPE ... ADD VALUE on old servers).
 */
export interface MigrationModule {
  up: MigrationFunction;
  down?: MigrationFunction;
  transaction?: boolean;
}

export interface MigrationFile {
  /** The file name without its extension: what kernel_migrations records. */
  name: string;
  path: string;
}

export interface MigrationPackage {
  name: string;
  /** Folder holding the migration files. */
  dir: string;
}

const MIGRATION_FILE = /\.(ts|js)$/;
const DECLARATION_FILE = /\.d\.ts$/;

/** The package's migration files, sorted by file name. A missing folder means none. */
export async function listMigrationFiles(pkg: MigrationPackage): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(pkg.dir, { withFileTypes: true });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return [];
    throw error;
  }
  const files = entries
    .filter((entry) => entry.isFile() && MIGRATION_FILE.test(entry.name) && !DECLARATION_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) // by code unit, independent of locale
    .map((fileName) => ({ name: basename(fileName, extname(fileName)), path: join(pkg.dir, fileName) }));
  const seen = new Map<string, string>();
  for (const file of files) {
    const earlier = seen.get(file.name);
    if (earlier !== undefined) {
      throw new Error(
        `Package ${pkg.name} has two migration files named ${file.name} ` +
          `(${basename(earlier)} and ${basename(file.path)}); keep one`,
      );
    }
    seen.set(file.name, file.path);
  }
  return files;
}

export async function loadMigrationModule(pkgName: string, file: MigrationFile): Promise<MigrationModule> {
  const loaded: unknown = await import(pathToFileURL(file.path).href);
  const candidate = loaded as Partial<MigrationModule>;
  if (typeof candidate.up !== 'function') {
    throw new Error(`Migration ${basename(file.path)} of package ${pkgName} does not export an up() function`);
  }
  if (candidate.down !== undefined && typeof candidate.down !== 'function') {
    throw new Error(`Migration ${basename(file.path)} of package ${pkgName} exports a down that is not a function`);
  }
  return {
    up: candidate.up,
    down: candidate.down,
    transaction: candidate.transaction !== false,
  };
}
