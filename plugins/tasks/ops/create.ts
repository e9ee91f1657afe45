import type { Context } from 'moleculer';
import type { Sequelize, Transaction } from 'sequelize';
import { readGovernance } from '../../../kernel/governance.ts';
import type { InlineClaim } from '../../../kernel/idempotency/inline.ts';
import type { PooledSql } from '../../../kernel/db/pooled-sql.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { DEFAULT_PRIORITY } from '../domain/constants.ts';
import { dueDates, type SlaTargets } from '../domain/sla.ts';
import { DEFAULT_INITIAL_STATUS, INITIAL_STATUSES, type TaskStatus } from '../domain/state-machine.ts';
import { invalidField } from '../errors.ts';
import { parseDate, type TaskFieldInput } from '../fields.ts';
import { checkRefs, type CheckedRefs } from '../refs.ts';
import { insertedRow, insertTask, type Actor, type ExecutionEntryInput, type NewTask } from '../db/task-store.ts';
import type { TaskRow } from '../db/task-row.ts';
import { dispatchEntry, emitDispatches } from './dispatch.ts';
import { emitAfterCommit } from '../service.ts';

export interface TaskDraft {
  task: NewTask;
  execution: ExecutionEntryInput[];
}

/** The row to insert for validated input (no I/O): defaults, the initial status, SLA due dates, an agent's dispatch. */
export function draftTask(
  input: TaskFieldInput & { title: string },
  createdBy: string | null,
  slaTargets: SlaTargets | undefined,
  now: Date,
  masterTakesUnassigned = false,
): TaskDraft {
  const status = (input.status ?? DEFAULT_INITIAL_STATUS) as TaskStatus;
  if (!INITIAL_STATUSES.includes(status)) {
    throw invalidField('status', `A task starts in one of: ${INITIAL_STATUSES.join(', ')}; '${status}' is reached by moving it (POST /tasks/{id}/move).`, 'initialStatus');
  }
  const priority = input.priority ?? DEFAULT_PRIORITY;
  const due = input.sla_policy_id && slaTargets ? dueDates(slaTargets, priority, now) : { response_due_at: null, resolution_due_at: null };
  const task: NewTask = {
    id: newId(),
    title: input.title,
    description: input.description ?? '',
    status,
    priority,
    assignee_type: input.assignee?.type ?? null,
    assignee_id: input.assignee?.id ?? null,
    deadline: input.deadline ? parseDate('deadline', input.deadline) : null,
    category_id: input.category_id ?? null,
    workspace_id: input.workspace_id ?? null,
    parent_id: input.parent_id ?? null,
    sla_policy_id: input.sla_policy_id ?? null,
    sla_response_due_at: due.response_due_at,
    sla_resolution_due_at: due.resolution_due_at,
    requester: input.requester ?? null,
    created_by: createdBy,
  };
  const execution = input.assignee?.type === 'agent'
    ? [dispatchEntry(input.assignee.id, 'assigned_at_creation')]
    : !input.assignee && masterTakesUnassigned ? [dispatchEntry(null, 'unassigned_at_creation')] : [];
  return { task, execution };
}

/** Checks the references, then inserts the task with its history (and dispatch record). */
export async function createTask(
  ctx: Context,
  db: Sequelize,
  entityId: string,
  input: TaskFieldInput & { title: string },
  actor: Actor,
  opts: { transaction?: Transaction; checked?: CheckedRefs; now?: Date; claimFor?: (expected: TaskRow) => InlineClaim; sql?: PooledSql } = {},
): Promise<{ row: TaskRow; execution: ExecutionEntryInput[]; claim?: InlineClaim }> {
  const now = opts.now ?? new Date();
  if (input.deadline) parseDate('deadline', input.deadline);
  const checked = opts.checked ?? (await checkRefs(ctx, db, entityId, input));
  const masterTakes = !input.assignee && !!input.workspace_id && (await masterTakesUnassigned(ctx, input.workspace_id));
  const draft = draftTask(input, actor.type === 'user' ? actor.id : null, checked.slaTargets, now, masterTakes);
  // an Idempotency-Key claimed in the insert, with the answer the row it inserts will make
  const claim = opts.claimFor?.(insertedRow(entityId, draft.task, now));
  const row = await insertTask(db, entityId, draft.task, { actor, execution: draft.execution }, now, { transaction: opts.transaction, claim, sql: opts.sql });
  return { row, execution: draft.execution, claim };
}

/** Whether the workspace's governance hands tasks created unassigned to its master agent. */
async function masterTakesUnassigned(ctx: Context, workspaceId: string): Promise<boolean> {
  const stored = await ctx.call<Record<string, unknown> | null, { workspace_id: string }>('workspaces.getGovernance', { workspace_id: workspaceId });
  return readGovernance(stored).unassigned_tasks === 'master_agent';
}

/** Once committed: task.created, and the run start of an agent assigned at creation. */
export function emitCreated(ctx: Context, created: { row: TaskRow; execution: ExecutionEntryInput[] }, actor: Actor): void {
  const { row } = created;
  emitAfterCommit(ctx, 'task.created', { entity_id: row.entity_id, task_id: row.id, workspace_id: row.workspace_id, status: row.status, actor });
  emitDispatches(ctx, row, created.execution);
}
