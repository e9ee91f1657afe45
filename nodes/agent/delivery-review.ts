import type { PlanView } from '../../kernel/agents-contract.ts';
import type { Checkpoint, DurableDecision } from '../../kernel/nodes/durable.ts';

/**
 * Delivery review: when a task run with an approved plan answers as if done, the plan is checked.
 * Unfinished steps are a correctable review error, told to the same loop as a user message (at
 * most REVIEW_CORRECTIONS times in a row); past that the run pauses in delivery review until a
 * person resumes it (`POST /tasks/{id}/resume-delivery-review`), which gives the loop a fresh
 * budget. A review error never repeats a completed tool call: the loop replays those.
 */

export const REVIEW_CORRECTIONS = 2;

/** A review's checkpoint (keys.ts reviewKey): what it found, what the model was told, who resumed. */
export interface ReviewRecord {
  unfinished: { index: number; title: string; status: string }[];
  message: string;
  plan_id: string;
  state_version: number;
  resumed_by: string | null;
}

export type ReviewVerdict =
  | { kind: 'passed' }
  | { kind: 'correct'; record: ReviewRecord; usedDecision: boolean }
  | { kind: 'pause'; plan: PlanView; unfinished: ReviewRecord['unfinished'] };

const FINISHED = new Set(['done', 'skipped']);

/** How many corrections were told since the last person's resume (replayed review checkpoints, in order). */
export function correctionsSinceResume(records: ReviewRecord[]): number {
  let count = 0;
  for (const r of records) count = r.resumed_by ? 1 : count + 1;
  return count;
}

/** Reviews the plan as it is now; `decision` is a person's resume of a paused review. */
export function reviewPlan(plan: PlanView, corrections: number, decision: DurableDecision | undefined): ReviewVerdict {
  if (plan.status === 'completed') return { kind: 'passed' };
  const unfinished = plan.steps.map((s, index) => ({ index, title: s.title, status: s.status })).filter((s) => !FINISHED.has(s.status));
  if (unfinished.length === 0) return { kind: 'passed' };
  const list = unfinished.map((s) => `${s.index}: ${s.title} (${s.status})`).join('; ');
  const base = { unfinished, plan_id: plan.id, state_version: plan.version };
  if (decision && decision.decision !== 'answer') {
    const why = decision.comment ? ` Their note: ${decision.comment}` : '';
    const message = `Delivery review, resumed by a person: the plan still has unfinished steps (${list}).${why} Finish them and mark each with update_plan_step, or mark a step skipped if it is not needed. Do not repeat work already done.`;
    return { kind: 'correct', record: { ...base, message, resumed_by: decision.decided_by }, usedDecision: true };
  }
  if (corrections >= REVIEW_CORRECTIONS) return { kind: 'pause', plan, unfinished };
  const message = `Delivery review: you answered as if done, but the approved plan has unfinished steps (${list}). Finish them and mark each with update_plan_step, or mark a step skipped if it is not needed. Do not repeat work already done.`;
  return { kind: 'correct', record: { ...base, message, resumed_by: null }, usedDecision: false };
}

export const reviewOf = (c: Checkpoint | undefined): ReviewRecord | undefined => c?.output as ReviewRecord | undefined;
