import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import type ValidatorClass from 'fastest-validator';
import { ERRORS } from '../errors/catalogue.ts';

export const CAPABILITY_KINDS = ['domain', 'channel', 'tool', 'node', 'sandbox', 'executor'] as const;
export const ROLES = ['api', 'control', 'work'] as const;
export type CapabilityKind = (typeof CAPABILITY_KINDS)[number];
export type Role = (typeof ROLES)[number];

/** The `capability` key of a package's package.json: data, checked before any code loads. */
export interface CapabilityManifest {
  kind: CapabilityKind;
  roles: Role[];
  entry?: string;
  /** semver range of the kernel this package works with */
  kernel?: string;
  /** other capability packages (by package name) that must be loaded first */
  requires?: string[];
}

export interface PackageDescriptor {
  name: string;
  version: string;
  dir: string;
  capability: CapabilityManifest;
  /** absolute path of the entry module */
  entryPath: string;
  /** folder of umzug migrations, when the package has one */
  migrationsDir?: string;
}

const Validator = createRequire(import.meta.url)('fastest-validator') as new () => InstanceType<typeof ValidatorClass.default>;
const check = new Validator().compile({
  $$root: true,
  type: 'object',
  strict: true,
  props: {
    kind: { type: 'enum', values: [...CAPABILITY_KINDS] },
    roles: { type: 'array', items: { type: 'enum', values: [...ROLES] }, min: 1, unique: true },
    entry: { type: 'string', optional: true, min: 1 },
    kernel: { type: 'string', optional: true, min: 1 },
    requires: { type: 'array', optional: true, items: 'string' },
  },
}) as (value: unknown) => true | FieldProblem[];

interface FieldProblem { field: string; type: string; message: string; expected?: unknown; actual?: unknown }

function describeProblem(p: FieldProblem): string {
  if (p.type === 'enumValue') return `${p.field} must be one of ${p.expected}, not '${p.actual}'`;
  return p.message;
}

const ENTRY_CANDIDATES = ['index.ts', 'index.js', 'index.mjs', 'index.cjs'];

/** Reads and validates a package folder's manifest; throws KERNEL_ERR_MANIFEST naming what is wrong. */
export async function readManifest(dir: string): Promise<PackageDescriptor> {
  const absDir = resolve(dir);
  const fail = (why: string) => ERRORS.KERNEL_ERR_MANIFEST(`${absDir}: ${why}`, { dir: absDir });
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(await readFile(join(absDir, 'package.json'), 'utf8'));
  } catch (err) {
    throw fail(`package.json is missing or not valid JSON (${(err as Error).message})`);
  }
  if (typeof pkg.name !== 'string' || !pkg.name) throw fail('package.json has no "name"');
  if (pkg.capability === undefined) throw fail('package.json has no "capability" key');
  const result = check(pkg.capability);
  if (result !== true) throw fail(`"capability" is invalid: ${result.map(describeProblem).join('; ')}`);
  const capability = pkg.capability as CapabilityManifest;
  const entryPath = resolveEntry(absDir, capability.entry ?? (typeof pkg.main === 'string' ? pkg.main : undefined));
  if (!entryPath) throw fail(`no entry found (capability.entry, "main", or one of ${ENTRY_CANDIDATES.join(', ')})`);
  const migrationsDir = join(absDir, 'migrations');
  return {
    name: pkg.name,
    version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
    dir: absDir,
    capability,
    entryPath,
    migrationsDir: existsSync(migrationsDir) ? migrationsDir : undefined,
  };
}

function resolveEntry(dir: string, declared?: string): string | undefined {
  if (declared) {
    const path = resolve(dir, declared);
    if (!path.startsWith(dir + sep)) return undefined;
    return existsSync(path) ? path : undefined;
  }
  return ENTRY_CANDIDATES.map((c) => join(dir, c)).find((p) => existsSync(p));
}
