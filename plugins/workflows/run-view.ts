import { logicalStepId } from './engine/loops.ts';
import { scrub, secretValues, summarise } from './engine/sanitize.ts';
import type { ReceiptRow, RunRow } from './store/run-types.ts';

const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

function withoutInvocation(pause: NonNullable<RunRow['pause']>): Record<string, unknown> {
  const { invocation: _invocation, ...rest } = pause;
  return rest;
}

/** A run as the list shows it (no snapshot, no trace). */
export function runSummary(row: RunRow): Record<string, unknown> {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    workflow_version: row.workflow_version,
    binding_id: row.binding_id,
    workspace_id: row.workspace_id,
    owner_id: row.owner_id,
    trigger_type: row.trigger_type,
    status: row.status,
    output: row.output ?? null,
    error: row.error ?? null,
    // the saved invocation of a runtime-approval wait is in the run detail only (scrubbed there)
    pause: row.pause ? withoutInvocation(row.pause) : null,
    retry_of: row.retry_of,
    root_run_id: row.root_run_id,
    retry_from_step: row.retry_from_step,
    lineage_attempt: row.lineage_attempt,
    recoveries: row.recoveries,
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

/**
 * Step inputs are not stored (they are the outputs of the step's active parents, all in the
 * receipts): the entry step's is the trigger, a step with one active parent gets its output,
 * one with several an object by parent id.
 */
function inputsFrom(row: RunRow, receipts: ReceiptRow[]): (stepId: string) => unknown {
  const byId = new Map(receipts.map((r) => [r.step_id, r]));
  const parents = new Map<string, string[]>();
  for (const s of row.snapshot?.steps ?? []) for (const n of s.next) parents.set(n, [...(parents.get(n) ?? []), s.id]);
  return (stepId) => {
    const all = parents.get(stepId) ?? [];
    if (all.length === 0) return row.trigger ?? null;
    const active = all.filter((p) => byId.get(p)?.taken?.includes(stepId));
    if (active.length === 0) return null;
    if (active.length === 1) return byId.get(active[0])?.output ?? null;
    return Object.fromEntries(active.map((p) => [p, byId.get(p)?.output ?? null]));
  };
}

/** Run detail: the snapshot and the sanitised trace (secrets scrubbed, large outputs summarised). */
export function runDetail(row: RunRow, receipts: ReceiptRow[], maxOutputBytes: number): Record<string, unknown> {
  const secrets = secretValues(row.variables, row.trigger, row.snapshot?.variables);
  const typeOf = new Map((row.snapshot?.steps ?? []).map((s) => [s.id, s.type]));
  const clean = (v: unknown) => summarise(scrub(v, secrets), maxOutputBytes);
  const inputOf = inputsFrom(row, receipts);
  const steps = receipts.map((r) => {
    const started = r.started_at ? new Date(r.started_at).getTime() : null;
    const finished = r.finished_at ? new Date(r.finished_at).getTime() : null;
    return {
      step_id: r.step_id,
      type: typeOf.get(logicalStepId(r.step_id)) ?? null,
      status: r.status,
      attempt: r.attempt,
      // a loop iteration's receipt (`<step>@<i>`): its parents' outputs of that iteration are not kept apart
      input: clean(r.input ?? (r.step_id === logicalStepId(r.step_id) ? inputOf(r.step_id) : null)),
      output: clean(r.output),
      error: r.error ?? null,
      taken: r.taken ?? null,
      uncertain: r.uncertain,
      carried_from: r.carried_from ?? null,
      started_at: iso(r.started_at),
      finished_at: iso(r.finished_at),
      duration_ms: started !== null && finished !== null ? finished - started : null,
      execute_ms: r.execute_ms ?? null,
      artifacts: (r.directive?.artifacts as unknown[]) ?? [],
      child_runs: (r.directive?.child_runs as unknown[]) ?? [],
    };
  });
  return { ...runSummary(row), pause: row.pause ? clean(row.pause) : null, output: clean(row.output ?? null), snapshot: row.snapshot, trigger: clean(row.trigger ?? null), steps };
}
