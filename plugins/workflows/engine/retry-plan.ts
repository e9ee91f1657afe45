import { RunPlan } from './plan.ts';
import { ELEMENT_KEY } from './each.ts';
import { CHECKPOINT_SEPARATOR } from '../../../kernel/nodes/durable.ts';

const EACH_ELEMENT = CHECKPOINT_SEPARATOR + ELEMENT_KEY;
import { referencedSteps } from './templates.ts';
import { ITERATION_SEPARATOR, iterationOf, logicalStepId, loopBodies } from './loops.ts';
import { SNAPSHOT_FORMAT, type Snapshot } from '../store/definitions.ts';
import type { ReceiptRow, RunRow } from '../store/run-types.ts';

export type RetryRefusal =
  | { kind: 'not_failed'; status: string }
  | { kind: 'snapshot'; message: string }
  | { kind: 'unknown_step'; step_id: string }
  | { kind: 'unreconciled'; steps: string[] }
  | { kind: 'nothing_to_retry' };

export interface RetryPlan {
  /** the snapshot the retry runs on (checked here) */
  snapshot: Snapshot;
  from: string[];
  invalidated: string[];
  carried: ReceiptRow[];
}

/**
 * Where a retry starts and what it keeps (pure). The frontier is the failed receipt(s), or an
 * explicit `from_step_id`; it and every step depending on it (downstream, or reading its
 * output in a template) are invalidated; completed, skipped and reconciled receipts outside
 * are carried into the new run. Refused: a run that is not failed, a missing or incompatible
 * snapshot, an unknown step, and any step with an unreconciled uncertain effect.
 */
export function planRetry(run: RunRow, receipts: ReceiptRow[], fromStepId: string | undefined, typeLoaded: (type: string) => boolean, isLoopType: (type: string) => boolean = () => false): RetryPlan | RetryRefusal {
  if (run.status !== 'failed') return { kind: 'not_failed', status: run.status };
  const snap = run.snapshot;
  if (!snap || snap.format !== SNAPSHOT_FORMAT || !Array.isArray(snap.steps) || snap.steps.length === 0) {
    return { kind: 'snapshot', message: 'the run has no execution snapshot in a format this engine can replay' };
  }
  const missing = snap.steps.filter((s) => !typeLoaded(s.type)).map((s) => `${s.id} (${s.type})`);
  if (missing.length) return { kind: 'snapshot', message: `the snapshot uses node types that are not loaded: ${missing.join(', ')}` };
  const unreconciled = receipts.filter((r) => r.status === 'needs_reconciliation').map((r) => r.step_id);
  if (unreconciled.length) return { kind: 'unreconciled', steps: unreconciled };
  const stepIds = new Set(snap.steps.map((s) => s.id));
  if (fromStepId !== undefined && !stepIds.has(fromStepId)) return { kind: 'unknown_step', step_id: fromStepId };
  const failedAt = (run.error as { step_id?: string } | null)?.step_id;
  // a run stopped by an element of a step with each: that step is where the retry starts
  const errorStep = failedAt?.includes(EACH_ELEMENT) ? logicalStepId(failedAt.slice(0, failedAt.indexOf(EACH_ELEMENT))) : failedAt;
  const from = fromStepId !== undefined ? [fromStepId] : receipts.filter((r) => r.status === 'failed' && !r.step_id.includes(EACH_ELEMENT)).map((r) => r.step_id);
  const settled = (r: ReceiptRow) => r.status === 'completed' || r.status === 'skipped' || r.status === 'reconciled';
  if (from.length === 0 && errorStep && stepIds.has(errorStep)) {
    // the step that stopped the run was reconciled as done: carry everything and go on after it
    if (receipts.find((r) => r.step_id === errorStep)?.status === 'reconciled') {
      return { snapshot: snap, from: [], invalidated: [], carried: receipts.filter(settled).map((r) => ({ ...r, carried_from: r.carried_from ?? run.id })) };
    }
    from.push(errorStep);
  }
  if (from.length === 0) return { kind: 'nothing_to_retry' };

  const entry = snap.steps[0].id;
  const plan = new RunPlan(snap.steps, entry);
  const invalid = new Set<string>();
  for (const f of from) for (const id of plan.downstream(f)) invalid.add(id);
  // a step reading an invalidated step's output is invalidated too, and what follows it
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of snap.steps) {
      if (invalid.has(s.id)) continue;
      const reads = referencedSteps(s.config, stepIds);
      if ([...reads].some((r) => invalid.has(r))) {
        for (const id of plan.downstream(s.id)) invalid.add(id);
        grew = true;
      }
    }
  }
  // a loop iteration's receipts (`<step>@<i>`) go with their step, and only for iterations that
  // ended (have their `<loop>@<i>`): an iteration cut short runs again whole
  // an element receipt of a step with `each` (`<step>:each.<i>`) goes with its step, and also
  // when that step failed and is retried itself: the retry goes on at its first element not done
  const elementOwner = (id: string) => (id.includes(EACH_ELEMENT) ? logicalStepId(id.slice(0, id.indexOf(EACH_ELEMENT))) : undefined);
  const keep = (r: ReceiptRow) => {
    const owner = elementOwner(r.step_id);
    if (owner === undefined) return !invalid.has(logicalStepId(r.step_id));
    return !invalid.has(owner) || (fromStepId === undefined && from.includes(owner));
  };
  const kept = receipts.filter((r) => keep(r) && settled(r));
  const bodies = loopBodies(snap.steps, (s) => isLoopType(s.type));
  const loopOf = new Map([...bodies].flatMap(([loop, body]) => [...body].map((id) => [id, loop] as const)));
  const ended = new Set(kept.map((r) => r.step_id));
  const carried = kept
    .filter((r) => {
      const loop = loopOf.get(logicalStepId(r.step_id));
      return loop === undefined || ended.has(`${loop}${ITERATION_SEPARATOR}${iterationOf(r.step_id)}`);
    })
    .map((r) => ({ ...r, carried_from: r.carried_from ?? run.id }));
  return { snapshot: snap, from, invalidated: [...invalid], carried };
}
