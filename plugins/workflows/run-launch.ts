import { newId } from '../../kernel/tenancy/ids.ts';
import { snapshotOf, type DefinitionRow } from './store/definitions.ts';
import type { BindingRow } from './store/bindings.ts';
import type { NewRun, RunRow } from './store/run-types.ts';
import type { WorkflowsService } from './service.ts';

/**
 * A new run of a definition: its snapshot is the definition's current version (stored by
 * reference, store/version-snapshots.ts), variables layered definition < binding < run.
 */
export function newRunOf(definition: DefinitionRow, opts: { binding?: BindingRow | null; workspace_id?: string | null; owner_id: string | null; trigger_type: string; trigger: unknown; variables?: Record<string, unknown> }): NewRun {
  return {
    id: newId(),
    entity_id: definition.entity_id,
    workflow_id: definition.id,
    workflow_version: definition.version,
    binding_id: opts.binding?.id ?? null,
    workspace_id: opts.binding?.workspace_id ?? opts.workspace_id ?? null,
    owner_id: opts.owner_id,
    trigger_type: opts.trigger_type,
    snapshot: snapshotOf(definition),
    snapshot_by_version: true,
    trigger: opts.trigger ?? null,
    variables: { ...(definition.variables ?? {}), ...(opts.binding?.variables ?? {}), ...(opts.variables ?? {}) },
  };
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'paused']);

/**
 * Waits until the run stops (finished or paused) or the bound passes, listening to its live
 * events; answers the run as it stands then.
 */
export async function waitForRun(svc: WorkflowsService, entityId: string, runId: string, seconds: number): Promise<RunRow | undefined> {
  let wake!: () => void;
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const unsubscribe = svc.live.subscribe(runId, (events) => {
    if (events.some((e) => e.type === 'run.finished' || e.type === 'run.paused')) wake();
  });
  try {
    const current = await svc.runQueries.find(entityId, runId);
    if (current && TERMINAL.has(current.status)) return current;
    const timer = setTimeout(wake, seconds * 1000);
    // live events are best-effort across nodes: look at the row now and then, too
    const poll = setInterval(() => {
      svc.runQueries.find(entityId, runId).then((r) => r && TERMINAL.has(r.status) && wake(), () => undefined);
    }, 1000);
    await stopped;
    clearTimeout(timer);
    clearInterval(poll);
    return svc.runQueries.find(entityId, runId);
  } finally {
    unsubscribe();
  }
}
