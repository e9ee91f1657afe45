/**
 * What a kernel node says about itself in the broker's node `metadata` (set in
 * moleculer.config.ts): `{ roles, queues, concurrency: { celery, work }, version }`. A node
 * of another build may carry none or part of it; each missing piece reads as undefined.
 */
export interface NodeDetails {
  roles?: string[];
  queues?: string[];
  /** only the queues the node consumes */
  concurrency?: Record<string, number>;
  version?: string;
}

/** The queue each role consumes (spec: control → `celery`, work → `work`). */
export const QUEUE_OF_ROLE: Readonly<Record<string, string>> = { control: 'celery', work: 'work' };

export function queuesOfRoles(roles: readonly string[]): string[] {
  return roles.flatMap((role) => (QUEUE_OF_ROLE[role] ? [QUEUE_OF_ROLE[role]] : []));
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** Reads node metadata defensively: anything of the wrong shape is treated as absent. */
export function readNodeMetadata(metadata: unknown): NodeDetails {
  if (!metadata || typeof metadata !== 'object') return {};
  const m = metadata as Record<string, unknown>;
  const roles = isStringList(m.roles) ? m.roles : undefined;
  const queues = isStringList(m.queues) ? m.queues : roles ? queuesOfRoles(roles) : undefined;
  return {
    roles,
    queues,
    concurrency: queues ? concurrencyFor(queues, m.concurrency) : undefined,
    version: typeof m.version === 'string' && m.version ? m.version : undefined,
  };
}

/** Keeps the entries of a `{ queue: n }` map that belong to the given queues and are whole numbers. */
export function concurrencyFor(queues: readonly string[], all: unknown): Record<string, number> | undefined {
  if (!all || typeof all !== 'object') return undefined;
  const map = all as Record<string, unknown>;
  const picked: Record<string, number> = {};
  for (const queue of queues) {
    const n = map[queue];
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) picked[queue] = n;
  }
  return picked;
}
