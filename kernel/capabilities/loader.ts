import { basename, resolve } from 'node:path';
import semver from 'semver';
import type { Service, ServiceBroker, ServiceSchema } from 'moleculer';

type LoggerInstance = ReturnType<ServiceBroker['getLogger']>;
import { ERRORS } from '../errors/catalogue.ts';
import { readManifest, type PackageDescriptor, type Role } from './manifest.ts';
import { importEntry } from './import-entry.ts';
import { SwapGate } from './swap-gate.ts';
import type { PackageRecord, PackageState } from './record.ts';
import { orderByRequires } from './order.ts';

export interface LoaderOptions {
  broker: ServiceBroker;
  roles: Role[];
  kernelVersion: string;
  /** package names an operator turned off on this node (CAPABILITY_DISABLED) */
  disabled?: string[];
  /** runs after the entry imported and before its services start (migrations) */
  beforeStart?: (pkg: PackageDescriptor) => Promise<void>;
  /** called once services were added or removed, before held requests are let through */
  afterChange?: () => void;
}

interface Loaded {
  descriptor: PackageDescriptor;
  schemas: ServiceSchema[];
  services: Service[];
}

/**
 * Loads capability packages into the broker, and reloads or unloads them while it runs.
 * A package is checked (manifest, kernel range, requires, entry, name clashes, migrations)
 * before anything running is touched, so a bad package never takes down a good one.
 */
export class CapabilityLoader {
  readonly gate = new SwapGate();
  private readonly records = new Map<string, PackageRecord>();
  private readonly loaded = new Map<string, Loaded>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly logger: LoggerInstance;
  private closed = false;

  constructor(private readonly opts: LoaderOptions) {
    this.logger = opts.broker.getLogger('capabilities');
  }

  setAfterChange(fn: () => void): void {
    this.opts.afterChange = fn;
  }

  list(): PackageRecord[] {
    return [...this.records.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Loads every package folder given, in `requires` order. */
  async loadAll(dirs: string[]): Promise<void> {
    const descriptors: PackageDescriptor[] = [];
    for (const dir of dirs) {
      try {
        descriptors.push(await readManifest(dir));
      } catch (err) {
        this.fail(resolve(dir), null, err);
      }
    }
    for (const d of orderByRequires(descriptors)) await this.load(d.dir);
  }

  /** Loads a new package folder or reloads a changed one (serialised per folder). */
  load(dir: string): Promise<PackageRecord> {
    return this.serial(resolve(dir), () => this.doLoad(resolve(dir)));
  }

  /** Destroys a package's services (the folder was removed). */
  unload(dir: string): Promise<void> {
    return this.serial(resolve(dir), () => this.doUnload(resolve(dir)));
  }

  /** Which package a local service belongs to, if any. */
  packageOfService(fullName: string): string | undefined {
    for (const l of this.loaded.values()) if (l.services.some((s) => s.fullName === fullName)) return l.descriptor.name;
    return undefined;
  }

  /** Refuses further loads and waits for the ones under way (before the broker stops). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.queues.values());
  }

  private serial<T>(dir: string, job: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the capability loader is closed'));
    const next = (this.queues.get(dir) ?? Promise.resolve()).then(job, job);
    this.queues.set(dir, next.catch(() => undefined));
    return next;
  }

  private async doLoad(dir: string): Promise<PackageRecord> {
    const previous = this.loaded.get(dir);
    let descriptor: PackageDescriptor | null = null;
    let schemas: ServiceSchema[];
    try {
      descriptor = await readManifest(dir);
      const disabled = this.opts.disabled?.includes(descriptor.name);
      if (disabled || !descriptor.capability.roles.some((r) => this.opts.roles.includes(r))) {
        if (previous) await this.stopServices(previous.services);
        this.loaded.delete(dir);
        this.opts.afterChange?.();
        return this.record(dir, descriptor, disabled ? 'disabled' : 'skipped', null, []);
      }
      this.checkCompatibility(descriptor);
      schemas = await importEntry(descriptor.entryPath, dir).catch((err: Error) => {
        throw ERRORS.KERNEL_ERR_ENTRY(`${descriptor!.name}: ${err.message}`);
      });
      schemas = schemas.map((s) => tagSchema(s, descriptor!.name, descriptor!.capability.kind));
      this.checkClashes(descriptor, schemas);
      await this.opts.beforeStart?.(descriptor);
    } catch (err) {
      return this.fail(dir, descriptor, err, previous);
    }

    const names = schemas.map(fullNameOf);
    const release = previous ? this.gate.hold(new Set([...names, ...previous.services.map((s) => s.fullName)])) : () => {};
    try {
      if (previous) await this.stopServices(previous.services);
      let services: Service[];
      try {
        services = await this.startServices(schemas);
      } catch (err) {
        if (previous) previous.services = await this.startServices(previous.schemas).catch(() => []);
        return this.fail(dir, descriptor, err, previous?.services.length ? previous : undefined);
      }
      this.loaded.set(dir, { descriptor, schemas, services });
      this.opts.afterChange?.();
      this.logger.info(`Capability '${descriptor.name}' ${previous ? 'reloaded' : 'loaded'} (${names.join(', ')}).`);
      const rec = this.record(dir, descriptor, 'loaded', null, names);
      this.opts.broker.broadcast('$capabilities.changed', { name: descriptor.name, state: rec.state, node: rec.node });
      return rec;
    } finally {
      release();
    }
  }

  private async doUnload(dir: string): Promise<void> {
    const current = this.loaded.get(dir);
    if (current) {
      await this.stopServices(current.services);
      this.loaded.delete(dir);
      this.opts.afterChange?.();
      this.logger.info(`Capability '${current.descriptor.name}' unloaded.`);
    }
    const rec = this.records.get(dir);
    if (rec) {
      this.records.delete(dir);
      this.opts.broker.broadcast('$capabilities.changed', { name: rec.name, state: 'unloaded', node: rec.node });
    }
  }

  private checkCompatibility(d: PackageDescriptor): void {
    const range = d.capability.kernel;
    if (range && !semver.satisfies(this.opts.kernelVersion, range)) {
      throw ERRORS.KERNEL_ERR_CAP_VERSION(`${d.name} needs kernel ${range}; this is ${this.opts.kernelVersion}`);
    }
    const missing = (d.capability.requires ?? []).filter((req) => ![...this.loaded.values()].some((l) => l.descriptor.name === req));
    if (missing.length) throw ERRORS.KERNEL_ERR_REQUIRES(`${d.name} requires ${missing.join(', ')}, not loaded on this node`);
  }

  private checkClashes(d: PackageDescriptor, schemas: ServiceSchema[]): void {
    const seen = new Set<string>();
    for (const schema of schemas) {
      const name = fullNameOf(schema);
      if (seen.has(name)) throw ERRORS.KERNEL_ERR_ACTION_CLASH(`${d.name} declares service '${name}' twice`);
      seen.add(name);
      const owner = this.opts.broker.getLocalService(name) as Service | undefined;
      if (owner && owner.metadata?.$package !== d.name) {
        const by = (owner.metadata?.$package as string | undefined) ?? 'the kernel';
        throw ERRORS.KERNEL_ERR_ACTION_CLASH(`${d.name}: service '${name}' (and its actions ${name}.*) is already served by ${by}`);
      }
    }
  }

  private async startServices(schemas: ServiceSchema[]): Promise<Service[]> {
    const broker = this.opts.broker;
    const created: Service[] = [];
    try {
      for (const schema of schemas) created.push(new broker.ServiceFactory(broker, schema));
      await Promise.all(created.map((svc) => (svc as unknown as { _start(): Promise<void> })._start()));
      return created;
    } catch (err) {
      await this.stopServices(created);
      throw ERRORS.KERNEL_ERR_ENTRY(`a service failed to start: ${(err as Error).message}`);
    }
  }

  private async stopServices(services: Service[]): Promise<void> {
    for (const svc of services) {
      if (this.opts.broker.services.includes(svc)) await this.opts.broker.destroyService(svc);
    }
  }

  private fail(dir: string, d: PackageDescriptor | null, err: unknown, previous?: Loaded): PackageRecord {
    const e = err as { type?: string; message?: string };
    const error = { code: typeof e.type === 'string' ? e.type : 'KERNEL_ERR_ENTRY', message: e.message ?? String(err) };
    this.logger.error(`Capability at ${dir} failed to load: [${error.code}] ${error.message}`);
    const state: PackageState = previous ? 'reload_failed' : 'failed';
    const rec = this.record(dir, d ?? previous?.descriptor ?? null, state, error, previous?.services.map((s) => s.fullName) ?? []);
    this.opts.broker.broadcast('$capabilities.changed', { name: rec.name, state, node: rec.node });
    return rec;
  }

  private record(dir: string, d: PackageDescriptor | null, state: PackageState, error: PackageRecord['error'], services: string[]): PackageRecord {
    const prev = this.records.get(dir);
    const rec: PackageRecord = {
      name: d?.name ?? prev?.name ?? basename(dir),
      kind: d?.capability.kind ?? null,
      version: d?.version ?? null,
      roles: d?.capability.roles ?? [],
      node: this.opts.broker.nodeID,
      dir,
      state,
      error,
      services,
      generation: (prev?.generation ?? 0) + (state === 'loaded' ? 1 : 0),
      updated_at: new Date().toISOString(),
    };
    this.records.set(dir, rec);
    return rec;
  }
}

const MULTIPART_PARAMS = {
  $fieldname: { type: 'string', optional: true },
  $filename: { type: 'string', optional: true },
  $encoding: { type: 'string', optional: true },
  $mimetype: { type: 'string', optional: true },
};

function isMultipart(rest: unknown): boolean {
  return (Array.isArray(rest) ? rest : [rest]).some((r) => !!r && typeof r === 'object' && (r as { type?: unknown }).type === 'multipart');
}

function fullNameOf(schema: ServiceSchema): string {
  const noPrefix = (schema.settings as { $noVersionPrefix?: boolean } | undefined)?.$noVersionPrefix;
  return schema.version != null && !noPrefix ? `v${schema.version}.${schema.name}` : schema.name;
}

/**
 * Records the owning package in service metadata, so every node's registry can tell, and
 * makes HTTP actions strict: a body or query field the action does not declare is a 422.
 */
function tagSchema(schema: ServiceSchema, pkg: string, kind: string): ServiceSchema {
  const actions = Object.fromEntries(
    Object.entries(schema.actions ?? {}).map(([name, action]) => {
      if (!action || typeof action !== 'object' || !('rest' in action) || !action.rest) return [name, action];
      const declared = (action.params ?? {}) as Record<string, unknown>;
      // moleculer-web adds these to the params of every file part of an upload route
      const params = isMultipart(action.rest) ? { ...MULTIPART_PARAMS, ...declared } : declared;
      return [name, { ...action, params: '$$strict' in params ? params : { $$strict: true, ...params } }];
    }),
  );
  return { ...schema, actions, metadata: { ...(schema.metadata ?? {}), $package: pkg, $kind: kind } } as ServiceSchema;
}
