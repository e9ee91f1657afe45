import { CHECKPOINT_SEPARATOR, type Checkpoint, type CheckpointEntry } from '../../../kernel/nodes/durable.ts';
import { iterationOf, type LoopState } from './loops.ts';
import type { PauseInfo, ReceiptRow, RunEvent } from '../store/run-types.ts';

/** Whether a receipt is a durable node's checkpoint (`<step>:<key>`) rather than a step's own. */
export function isCheckpointId(stepId: string): boolean {
  return stepId.includes(CHECKPOINT_SEPARATOR);
}

/** A checkpoint receipt as its durable node reads it back. */
export function checkpointOf(r: ReceiptRow): Checkpoint {
  return { key: r.step_id.slice(r.step_id.indexOf(CHECKPOINT_SEPARATOR) + 1), status: r.status as Checkpoint['status'], output: r.output, error: r.error, uncertain: r.uncertain, started_at: r.started_at, finished_at: r.finished_at };
}

/** Receipts as stored: a loop body step's under its iteration (its pause names that receipt, so a resume finds it). */
export function storedReceipts(loops: LoopState, receipts: ReceiptRow[]): ReceiptRow[] {
  return receipts.map((r) => {
    const id = iterationOf(r.step_id) === undefined ? loops.storedId(r.step_id) : r.step_id;
    if (id === r.step_id) return r;
    const pause = r.directive?.pause as PauseInfo | undefined;
    return { ...r, step_id: id, directive: pause ? { ...r.directive, pause: { ...pause, step_id: id } } : r.directive };
  });
}

/** The run events a commit of these receipts tells: started (unless `started` says it was told), finished, skipped. */
export function receiptEvents(receipts: ReceiptRow[], typeOf: (stepId: string) => string, started: (stepId: string) => boolean): RunEvent[] {
  const out: RunEvent[] = [];
  for (const r of receipts) {
    if (isCheckpointId(r.step_id)) continue;
    if (r.status === 'skipped') out.push({ type: 'step.skipped', data: { step_id: r.step_id } });
    else if (r.status === 'running') out.push({ type: 'step.started', data: { step_id: r.step_id, type: typeOf(r.step_id), uncertain: true } });
    else {
      if (!started(r.step_id)) out.push({ type: 'step.started', data: { step_id: r.step_id, type: typeOf(r.step_id), started_at: r.started_at } });
      out.push({ type: 'step.finished', data: { step_id: r.step_id, status: r.status, finished_at: r.finished_at, error: r.error ?? undefined } });
    }
  }
  return out;
}

/** The receipt of a step decided skipped. */
export function skipReceipt(stepId: string, now: string): ReceiptRow {
  return { step_id: stepId, status: 'skipped', attempt: 1, input: null, output: null, error: null, taken: [], directive: null, uncertain: false, carried_from: null, started_at: now, finished_at: now, execute_ms: null };
}

/** The run's output when it completes: the end step's, else the leaves' outputs by step. */
export function finalOutputOf(receipts: Iterable<ReceiptRow>): unknown {
  const leaves = [...receipts].filter((r) => r.status === 'completed' && (r.taken ?? []).length === 0);
  if (leaves.length === 1) return leaves[0].output;
  return Object.fromEntries(leaves.map((r) => [r.step_id, r.output]));
}

/** The receipt of one checkpoint of durable step `stepId`; `known` holds the step's checkpoints so far, by receipt id. */
export function checkpointRow(stepId: string, e: CheckpointEntry, known: ReadonlyMap<string, ReceiptRow>, now: string): ReceiptRow {
  const id = `${stepId}${CHECKPOINT_SEPARATOR}${e.key}`;
  const previous = known.get(id);
  return {
    step_id: id, status: e.status, attempt: (previous?.attempt ?? 0) + (previous?.status === 'running' ? 0 : 1), input: null,
    output: e.output ?? null, error: e.error ?? null, taken: null, directive: null, uncertain: e.uncertain === true,
    carried_from: null, started_at: previous?.started_at ?? now, finished_at: e.status === 'running' ? null : now, execute_ms: null,
  };
}
