import { defineError } from '../../kernel/errors/define.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { allowedTargets, type TaskStatus } from './domain/state-machine.ts';
import type { FieldProblem } from '../../kernel/references.ts';

/** The codes of the tasks package (documented in plugins/tasks/README.md). */
export const TASKS_ERR_ILLEGAL_TRANSITION = defineError({ code: 'TASKS_ERR_ILLEGAL_TRANSITION', status: 409, title: 'Illegal task status move' });
export const TASKS_ERR_VERSION_CONFLICT = defineError({ code: 'TASKS_ERR_VERSION_CONFLICT', status: 409, title: 'The task changed meanwhile' });
export const TASKS_ERR_NO_PENDING_REQUEST = defineError({ code: 'TASKS_ERR_NO_PENDING_REQUEST', status: 409, title: 'The task has no pending request of that kind' });
export const TASKS_ERR_REVIEW_MISMATCH = defineError({ code: 'TASKS_ERR_REVIEW_MISMATCH', status: 409, title: 'The delivery review is not in the expected state' });
export const TASKS_ERR_IN_USE = defineError({ code: 'TASKS_ERR_IN_USE', status: 409, title: 'Still in use' });

export function illegalMove(taskId: string, from: TaskStatus, to: string, why = ''): Error {
  const allowed = allowedTargets(from);
  return TASKS_ERR_ILLEGAL_TRANSITION(
    `Task '${taskId}' cannot move from '${from}' to '${to}'${why}; from '${from}' it may move to: ${allowed.join(', ') || 'nothing'}.`,
    { task_id: taskId, current_status: from, requested_status: to, allowed_targets: allowed },
  );
}

/** `expected` undefined: the caller named no version, but the task moved under the request. */
export function versionConflict(taskId: string, expected: number | undefined, current: { version: number; status: TaskStatus }): Error {
  const seen = expected === undefined ? '' : `, not ${expected}`;
  return TASKS_ERR_VERSION_CONFLICT(
    `Task '${taskId}' is at version ${current.version} (status '${current.status}')${seen}: it changed meanwhile; read it again.`,
    { task_id: taskId, expected_version: expected ?? null, current_version: current.version, current_status: current.status, allowed_targets: allowedTargets(current.status) },
  );
}

export type { FieldProblem };

/** A 422 naming the fields, like the gateway's own validation errors. */
export function invalid(problems: FieldProblem[], detail?: string): Error {
  return ERRORS.VALIDATION_FAILED(detail ?? problems.map((p) => p.message).join(' '), problems);
}

export function invalidField(field: string, message: string, type = 'invalid'): Error {
  return invalid([{ field, message, type }]);
}

export function notFound(resource: string, id: string): Error {
  return ERRORS.NOT_FOUND(`No ${resource} with id '${id}'.`, { resource, id });
}
