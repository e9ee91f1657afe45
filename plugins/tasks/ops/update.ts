import type { Context } from 'moleculer';
import { QueryTypes, type Sequelize } from 'sequelize';
import { checkMove, type TaskStatus } from '../domain/state-machine.ts';
import { dueDates, type SlaTargets } from '../domain/sla.ts';
import { illegalMove, versionConflict } from '../errors.ts';
import { parseDate, type TaskFieldInput } from '../fields.ts';
import { checkRefs, type TaskRefs } from '../refs.ts';
import { commitTaskChange, getTask, type Actor, type ExecutionEntryInput, type FieldChange, type TaskColumns } from '../db/task-store.ts';
import { iso, type TaskRow } from '../db/task-row.ts';
import { conflictAfterLostRace, moveColumns } from './move.ts';
import { dispatchEntry } from './dispatch.ts';

export interface UpdateResult {
  row: TaskRow;
  /** the status before, when this update moved the task */
  movedFrom?: TaskStatus;
  execution: ExecutionEntryInput[];
  changed: boolean;
}

const PLAIN_FIELDS = ['title', 'description', 'priority', 'requester', 'category_id', 'workspace_id', 'parent_id', 'sla_policy_id'] as const;
const REF_FIELDS = ['category_id', 'workspace_id', 'parent_id', 'sla_policy_id'] as const;

/** PUT /tasks/{id}: the fields that differ, a status only through the state machine, all in one guarded write. */
export async function updateTask(ctx: Context, db: Sequelize, entityId: string, taskId: string, input: TaskFieldInput & { version?: number }, actor: Actor): Promise<UpdateResult> {
  const now = new Date();
  const row = await getTask(db, entityId, taskId);
  if (input.version !== undefined && input.version !== Number(row.version)) throw versionConflict(row.id, input.version, { version: Number(row.version), status: row.status });
  const set: TaskColumns = {};
  const changes: FieldChange[] = [];
  const put = (field: keyof TaskColumns, from: unknown, to: unknown) => {
    (set as Record<string, unknown>)[field] = to;
    changes.push({ field, from: from instanceof Date ? from.toISOString() : from, to: to instanceof Date ? to.toISOString() : to });
  };

  for (const field of PLAIN_FIELDS) {
    const to = input[field];
    if (to !== undefined && to !== row[field]) put(field, row[field], to);
  }
  if (input.deadline !== undefined) {
    const to = input.deadline === null ? null : parseDate('deadline', input.deadline);
    if (iso(to) !== iso(row.deadline)) put('deadline', row.deadline, to);
  }
  const execution: ExecutionEntryInput[] = [];
  if (input.assignee !== undefined) {
    const to = input.assignee;
    if ((to?.type ?? null) !== row.assignee_type || (to?.id ?? null) !== row.assignee_id) {
      put('assignee_type', row.assignee_type, to?.type ?? null);
      put('assignee_id', row.assignee_id, to?.id ?? null);
      if (to?.type === 'agent') execution.push(dispatchEntry(to.id, 'assigned'));
    }
  }

  const refs: TaskRefs = {};
  for (const field of REF_FIELDS) if (field in set && set[field]) refs[field] = set[field] as string;
  const checked = await checkRefs(ctx, db, entityId, refs, row.id);

  const policyId = 'sla_policy_id' in set ? set.sla_policy_id : row.sla_policy_id;
  if ('sla_policy_id' in set || ('priority' in set && policyId)) {
    const targets = checked.slaTargets ?? (policyId ? (await loadTargets(db, entityId, policyId)) : undefined);
    const due = policyId && targets ? dueDates(targets, Number(set.priority ?? row.priority), row.created_at) : { response_due_at: null, resolution_due_at: null };
    if (iso(due.response_due_at) !== iso(row.sla_response_due_at)) put('sla_response_due_at', row.sla_response_due_at, due.response_due_at);
    if (iso(due.resolution_due_at) !== iso(row.sla_resolution_due_at)) put('sla_resolution_due_at', row.sla_resolution_due_at, due.resolution_due_at);
  }

  let movedFrom: TaskStatus | undefined;
  if (input.status !== undefined && input.status !== row.status) {
    const check = checkMove(row.status, input.status);
    if (!check.ok) throw illegalMove(row.id, row.status, input.status);
    const move = moveColumns(row, check.to, now);
    Object.assign(set, move.set);
    changes.push(...move.changes);
    movedFrom = row.status;
  }

  if (!changes.length) return { row, execution: [], changed: false };
  const updated = await commitTaskChange(db, { entityId, taskId: row.id, expectedVersion: Number(row.version), set, action: 'update', actor, changes, execution, now });
  if (!updated) throw await conflictAfterLostRace(db, { entityId, taskId: row.id }, Number(row.version));
  return { row: updated, movedFrom, execution, changed: true };
}

async function loadTargets(db: Sequelize, entityId: string, policyId: string): Promise<SlaTargets | undefined> {
  const rows = await db.query<{ targets: SlaTargets }>('SELECT targets FROM task_sla_policies WHERE id = $1 AND entity_id = $2', {
    bind: [policyId, entityId],
    type: QueryTypes.SELECT,
  });
  return rows[0]?.targets;
}
