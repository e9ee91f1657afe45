import { defineError } from '../../kernel/errors/define.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import type { FieldProblem } from '../../kernel/references.ts';

/** The codes of the jobs package (documented in docs/errors.md and the README). */
export const JOBS_ERR_MANAGED_BY_BINDING = defineError({ code: 'JOBS_ERR_MANAGED_BY_BINDING', status: 409, title: 'The job belongs to a workflow binding' });
export const JOBS_ERR_RUN_IN_PROGRESS = defineError({ code: 'JOBS_ERR_RUN_IN_PROGRESS', status: 409, title: 'A run of the job is still going' });

export type { FieldProblem };

/** A 422 naming the fields, like the gateway's own validation errors. */
export function invalid(problems: FieldProblem[]): Error {
  return ERRORS.VALIDATION_FAILED(problems.map((p) => p.message).join(' '), problems);
}

export function invalidField(field: string, message: string, type: string): Error {
  return invalid([{ field, message, type }]);
}

export function notFound(resource: string, id: string, field?: string): Error {
  return ERRORS.NOT_FOUND(`No ${resource} with id '${id}'${field ? ` (${field})` : ''}.`, { resource, id, ...(field ? { field } : {}) });
}

export function managedByBinding(jobId: string, bindingId: string): Error {
  return JOBS_ERR_MANAGED_BY_BINDING(`Job '${jobId}' fires the workflow binding '${bindingId}'; change or delete the binding (PUT/DELETE /api/v1/workflows/bindings/${bindingId}) instead.`, { job_id: jobId, binding_id: bindingId });
}
