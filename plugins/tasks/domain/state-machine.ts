/**
 * The task state machine: one declared table, no I/O. Every status change of a task (a move,
 * a PUT with a status, a comment that resumes a waiting task, a retry, a public review action,
 * a run reporting progress) asks this module first; nothing else decides what is legal.
 */

export const TASK_STATUSES = [
  'created',
  'proposed',
  'pending',
  'scheduled',
  'in_progress',
  'waiting_on_customer',
  'on_hold',
  'blocked',
  'completed',
  'cancelled',
  'failed',
] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The name of a transition says what the move means (shown by GET /tasks/constants). */
export type TransitionName =
  | 'propose'
  | 'accept'
  | 'schedule'
  | 'unschedule'
  | 'start'
  | 'resume'
  | 'unblock'
  | 'wait_on_customer'
  | 'hold'
  | 'block'
  | 'requeue'
  | 'complete'
  | 'fail'
  | 'cancel'
  | 'reject'
  | 'retry'
  | 'reopen';

/** THE table: from each status, the statuses it may move to and what that move is called. */
export const TRANSITIONS: { readonly [From in TaskStatus]: Readonly<Partial<Record<TaskStatus, TransitionName>>> } = {
  created: { proposed: 'propose', pending: 'accept', scheduled: 'schedule', in_progress: 'start', on_hold: 'hold', blocked: 'block', cancelled: 'cancel' },
  proposed: { pending: 'accept', scheduled: 'schedule', in_progress: 'start', on_hold: 'hold', cancelled: 'reject' },
  pending: { scheduled: 'schedule', in_progress: 'start', on_hold: 'hold', blocked: 'block', cancelled: 'cancel' },
  scheduled: { pending: 'unschedule', in_progress: 'start', on_hold: 'hold', blocked: 'block', cancelled: 'cancel' },
  in_progress: { waiting_on_customer: 'wait_on_customer', on_hold: 'hold', blocked: 'block', pending: 'requeue', completed: 'complete', failed: 'fail', cancelled: 'cancel' },
  waiting_on_customer: { in_progress: 'resume', on_hold: 'hold', completed: 'complete', cancelled: 'cancel' },
  on_hold: { in_progress: 'resume', pending: 'requeue', cancelled: 'cancel' },
  blocked: { in_progress: 'unblock', pending: 'requeue', on_hold: 'hold', cancelled: 'cancel' },
  failed: { pending: 'retry', cancelled: 'cancel' },
  completed: { pending: 'reopen' },
  cancelled: { pending: 'reopen' },
};

/** Statuses a task may be created in (also by template, CSV import or a channel). */
export const INITIAL_STATUSES: readonly TaskStatus[] = ['created', 'proposed', 'pending', 'scheduled'];
export const DEFAULT_INITIAL_STATUS: TaskStatus = 'created';

/** A task in one of these is waiting: a comment on it resumes it (a legal move of the table). */
export const RESUME_ON_COMMENT: Readonly<Partial<Record<TaskStatus, TaskStatus>>> = {
  waiting_on_customer: 'in_progress',
  on_hold: 'in_progress',
};

/** POST /tasks/{id}/retry: only a failed task, which goes back to the queue for a new run. */
export const RETRY_MOVE = { from: 'failed', to: 'pending' } as const satisfies { from: TaskStatus; to: TaskStatus };

/** The public review's "complete" action. */
export const COMPLETE_TARGET: TaskStatus = 'completed';

/** Reaching one of these resolves the task (its SLA resolution clock stops). */
export const RESOLVED_STATUSES: readonly TaskStatus[] = ['completed', 'cancelled'];

/** Leaving these for any other status is the first response (its SLA response clock stops). */
export const UNANSWERED_STATUSES: readonly TaskStatus[] = ['created', 'proposed', 'pending'];

export type MoveCheck =
  | { ok: true; from: TaskStatus; to: TaskStatus; transition: TransitionName }
  | { ok: false; from: TaskStatus; to: string; allowed: TaskStatus[] };

export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && (TASK_STATUSES as readonly string[]).includes(value);
}

/** The statuses `from` may move to, in the order of TASK_STATUSES. */
export function allowedTargets(from: TaskStatus): TaskStatus[] {
  const row = TRANSITIONS[from];
  return TASK_STATUSES.filter((to) => row[to] !== undefined);
}

/** Whether moving `from` → `to` is legal; when not, which targets are. Staying put is not a move. */
export function checkMove(from: TaskStatus, to: string): MoveCheck {
  const transition = isTaskStatus(to) ? TRANSITIONS[from][to] : undefined;
  if (transition === undefined || !isTaskStatus(to)) return { ok: false, from, to, allowed: allowedTargets(from) };
  return { ok: true, from, to, transition };
}

/** The status a comment moves a task to, or null when the task is not waiting. */
export function resumeTargetOnComment(from: TaskStatus): TaskStatus | null {
  return RESUME_ON_COMMENT[from] ?? null;
}

export interface TransitionEntry {
  from: TaskStatus;
  to: TaskStatus;
  name: TransitionName;
}

/** The table as a flat list, in status order (for GET /tasks/constants). */
export function transitionList(): TransitionEntry[] {
  return TASK_STATUSES.flatMap((from) => allowedTargets(from).map((to) => ({ from, to, name: TRANSITIONS[from][to]! })));
}
