import { TASKS_ERR_NO_PENDING_REQUEST, TASKS_ERR_REVIEW_MISMATCH } from '../errors.ts';
import type { DeliveryReview, PendingRequest, TaskRow } from '../db/task-row.ts';
import type { Actor } from '../db/task-store.ts';
import type { Decision } from './change.ts';

/**
 * What answering a run's request and resuming a delivery review decide (no I/O): each either
 * refuses with a 409 naming the task's actual state, or says what to change.
 */

export function pendingRequestOf(row: TaskRow, kind: PendingRequest['kind'], requestId: string | undefined): PendingRequest {
  const pending = row.pending_request;
  if (!pending || pending.kind !== kind) {
    throw TASKS_ERR_NO_PENDING_REQUEST(`Task '${row.id}' has no pending ${kind === 'hitl' ? 'HITL question' : 'approval request'}${pending ? ` (it waits for a ${pending.kind} answer)` : ''}.`, {
      task_id: row.id,
      expected_kind: kind,
      pending_kind: pending?.kind ?? null,
    });
  }
  if (requestId !== undefined && requestId !== pending.id) {
    throw TASKS_ERR_NO_PENDING_REQUEST(`Task '${row.id}' has no pending request '${requestId}'; the pending one is '${pending.id}'.`, {
      task_id: row.id,
      expected_kind: kind,
      pending_kind: pending.kind,
      pending_request_id: pending.id,
    });
  }
  return pending;
}

/** `logId`: the comment that answered, when a comment did (else the hitl-response route). */
export function answerHitl(row: TaskRow, requestId: string | undefined, response: string, actor: Actor, now: Date, logId?: string): Decision {
  const pending = pendingRequestOf(row, 'hitl', requestId);
  const answer = { request_id: pending.id, run_id: pending.run_id ?? null, response, answered_by: actor, answered_at: now.toISOString(), ...(logId ? { log_id: logId } : {}) };
  return {
    action: 'hitl_response',
    set: { pending_request: null },
    changes: [{ field: 'pending_request', from: pending, to: null }],
    execution: [{ kind: 'hitl_response', data: answer }],
  };
}

export function decideApproval(row: TaskRow, requestId: string | undefined, decision: 'approve' | 'reject', comment: string | undefined, actor: Actor, now: Date): Decision {
  const pending = pendingRequestOf(row, 'approval', requestId);
  const record = { request_id: pending.id, run_id: pending.run_id ?? null, decision, comment: comment ?? null, decided_by: actor, decided_at: now.toISOString() };
  return {
    action: 'approval',
    set: { pending_request: null },
    changes: [{ field: 'pending_request', from: pending, to: null }],
    execution: [{ kind: 'approval_decision', data: record }],
  };
}

/**
 * Resumes a run paused in delivery review when the caller saw the same plan and state
 * version. It approves no pending action and completes nothing: status and pending request stay.
 */
export function resumeDeliveryReview(row: TaskRow, expectedPlanId: string, expectedStateVersion: number, actor: Actor, now: Date): Decision {
  const review = row.delivery_review;
  if (!review || review.state !== 'paused') {
    throw TASKS_ERR_REVIEW_MISMATCH(`Task '${row.id}' has no run paused in delivery review${review ? ` (its review is ${review.state})` : ''}.`, {
      task_id: row.id,
      review_state: review?.state ?? null,
    });
  }
  if (review.plan_id !== expectedPlanId || review.state_version !== expectedStateVersion) {
    throw TASKS_ERR_REVIEW_MISMATCH(
      `The paused review of task '${row.id}' is at plan '${review.plan_id}' state version ${review.state_version}, not plan '${expectedPlanId}' version ${expectedStateVersion}; read the task again.`,
      { task_id: row.id, current_plan_id: review.plan_id, current_state_version: review.state_version, expected_plan_id: expectedPlanId, expected_state_version: expectedStateVersion },
    );
  }
  const resumed: DeliveryReview = { ...review, state: 'resumed', resumed_at: now.toISOString() };
  return {
    action: 'resume_delivery_review',
    set: { delivery_review: resumed },
    changes: [{ field: 'delivery_review', from: review, to: resumed }],
    execution: [{ kind: 'delivery_review_resumed', data: { plan_id: review.plan_id, state_version: review.state_version, run_id: review.run_id ?? null, resumed_by: actor } }],
  };
}
