import { snapshotOf, type Snapshot } from './definitions.ts';
import type { Sql } from './sql.ts';
import type { RunnableRun, RunRow } from './run-types.ts';

const MAX_ENTRIES = 2_000;

/** Whether the run has its snapshot at hand (see VersionSnapshots.fill). */
export function isRunnable<T extends RunRow>(run: T): run is T & RunnableRun {
  return run.snapshot !== null;
}

type VersionDefinition = Pick<Snapshot, 'name' | 'trigger_type' | 'steps' | 'variables'>;

/**
 * The snapshots of runs that reference their definition version instead of holding a copy
 * (migrations/004). A version never changes once saved, so each is read once per process and
 * kept (up to MAX_ENTRIES; then the cache starts over): every run of a version shares one
 * snapshot object, which the engine only reads.
 */
export class VersionSnapshots {
  private readonly cache = new Map<string, { entity_id: string; snapshot: Snapshot }>();

  constructor(private readonly sql: Sql) {}

  /** The snapshot of a saved version, or undefined when there is no such version in the entity. */
  async of(entityId: string, workflowId: string, version: number): Promise<Snapshot | undefined> {
    const key = `${workflowId}:${version}`;
    const hit = this.cache.get(key);
    if (hit) return hit.entity_id === entityId ? hit.snapshot : undefined;
    const row = await this.sql.one<{ definition: VersionDefinition }>(
      'SELECT definition FROM workflow_versions WHERE entity_id = $1 AND workflow_id = $2 AND version = $3',
      [entityId, workflowId, version],
      'wf_version_snapshot',
    );
    if (!row) return undefined;
    const d = row.definition;
    const snapshot = snapshotOf({ id: workflowId, version, name: d.name, trigger_type: d.trigger_type, steps: d.steps, variables: d.variables ?? {} });
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { entity_id: entityId, snapshot });
    return snapshot;
  }

  /**
   * A run row as read from the table, with its snapshot: its own copy when it holds one,
   * else its version's (`snapshot_by_version`); null when neither exists any more.
   */
  async fill<T extends RunRow>(row: T): Promise<T>;
  async fill<T extends RunRow>(row: T | undefined): Promise<T | undefined>;
  async fill<T extends RunRow>(row: T | undefined): Promise<T | undefined> {
    if (!row || row.snapshot) return row;
    row.snapshot = (await this.of(row.entity_id, row.workflow_id, row.workflow_version)) ?? null;
    row.snapshot_by_version = true;
    return row;
  }
}
