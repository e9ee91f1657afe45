import { defineError } from '../../kernel/errors/define.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import type { PlanStatus } from '../../kernel/agents-contract.ts';
import type { FieldProblem } from '../../kernel/references.ts';

/** The codes of the goals package (documented in plugins/goals/README.md and docs/errors.md). */
export const GOALS_ERR_PLAN_NOT_PENDING = defineError({ code: 'GOALS_ERR_PLAN_NOT_PENDING', status: 409, title: 'The plan is not pending' });
export const GOALS_ERR_PLAN_NOT_APPROVED = defineError({ code: 'GOALS_ERR_PLAN_NOT_APPROVED', status: 409, title: 'The plan is not approved' });

export function planNotPending(planId: string, current: PlanStatus): Error {
  return GOALS_ERR_PLAN_NOT_PENDING(`Plan '${planId}' is ${current}, not pending: it was decided already (or replaced).`, { plan_id: planId, current_status: current });
}

export function planNotApproved(planId: string, current: PlanStatus): Error {
  return GOALS_ERR_PLAN_NOT_APPROVED(`Plan '${planId}' is ${current}: only the steps of an approved plan make progress.`, { plan_id: planId, current_status: current });
}

export type { FieldProblem };

/** A 422 naming the fields, like the gateway's own validation errors. */
export function invalid(problems: FieldProblem[]): Error {
  return ERRORS.VALIDATION_FAILED(problems.map((p) => p.message).join(' '), problems);
}

export function notFound(resource: string, id: string): Error {
  return ERRORS.NOT_FOUND(`No ${resource} with id '${id}'.`, { resource, id });
}
