import { newId } from '../../kernel/tenancy/ids.ts';
import { snapshotOf, type DefinitionRow } from './store/definitions.ts';
import type { BindingRow } from './store/bindings.ts';
import type { Approval, NewRun, PauseInfo, RunRow } from './store/run-types.ts';
import { RUN_JOB } from './engine/engine.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
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

/** Hands a run the API made runnable again back to the queue. */
export async function requeue(svc: WorkflowsService, row: RunRow): Promise<void> {
  await svc.engine.queue.enqueue('work', { name: RUN_JOB, id: `${row.id}:s${row.seq}` });
  svc.live.publish(row.id, row.entity_id, [{ id: row.seq, type: 'run.resumed', data: { status: row.status } }]);
}

/**
 * The decision a durable node's parked step gets (kernel/nodes/durable.ts): a question needs an
 * answer (`input` as text), an approval an explicit approve or reject; the node acts on either.
 */
export function durableDecision(
  pause: PauseInfo,
  params: { decision?: 'approve' | 'reject'; input?: unknown; answer?: string },
  decided: { decided_by: string; decided_at: string; comment: string | null },
): Approval {
  if (pause.kind === 'question') {
    const answer = params.answer ?? (typeof params.input === 'string' ? params.input : undefined);
    if (answer === undefined || answer.trim() === '') {
      throw ERRORS.VALIDATION_FAILED('This run waits for an answer to its question.', [{ field: 'input', message: 'Give the answer as a non-empty string in `input`.', type: 'answerRequired' }]);
    }
    return { decision: 'answer', answer: answer.slice(0, 20_000), ...decided };
  }
  return { decision: params.decision === 'reject' ? 'reject' : 'approve', ...decided };
}
