import type { Context, ServiceSchema } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { COMPLETE_TARGET, TASK_STATUSES } from '../domain/state-machine.ts';
import { getTask, type Actor } from '../db/task-store.ts';
import { iso, taskView, type TaskRow } from '../db/task-row.ts';
import { STATUS_RULE } from '../fields.ts';
import { changeTask } from '../ops/change.ts';
import { emitStatusChanged, moveTask } from '../ops/move.ts';
import { resolveCode, type PublicCodeRow } from '../ops/public-codes.ts';
import { dbOf, emitAfterCommit, type TasksAction } from '../service.ts';
import { publicCodeWorkspace } from '../workspace-of.ts';

/**
 * Service `public-task`: what an external collaborator holding a public session code may see
 * and do, without a bearer token. Every status change goes through the state machine.
 */

const CODE = { code: { type: 'string', min: 1, max: 200 } } as const;
const PUBLIC_TASK_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    status: { type: 'string', enum: [...TASK_STATUSES] },
    priority: { type: 'integer' },
    deadline: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    category: { anyOf: [{ type: 'object', properties: { name: { type: 'string' }, icon: { type: 'string' }, color: { type: 'string' } } }, { type: 'null' }] },
    allowed_transitions: { type: 'array', items: { type: 'string' } },
    evaluation: { anyOf: [{ type: 'object' }, { type: 'null' }] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    session_expires_at: { type: 'string', format: 'date-time' },
  },
  required: ['title', 'status', 'priority', 'allowed_transitions', 'session_expires_at'],
};

/** The task without its internal fields (no entity, workspace, assignee, execution record, requests). */
async function publicView(svc: Parameters<typeof dbOf>[0], row: TaskRow, code: PublicCodeRow) {
  const view = taskView(row);
  const [category] = row.category_id
    ? await dbOf(svc).query<{ name: string; icon: string; color: string }>('SELECT name, icon, color FROM task_categories WHERE id = $1 AND entity_id = $2', {
        bind: [row.category_id, row.entity_id],
        type: QueryTypes.SELECT,
      })
    : [];
  return {
    title: view.title,
    description: view.description,
    status: view.status,
    priority: view.priority,
    deadline: view.deadline,
    category: category ?? null,
    allowed_transitions: view.allowed_transitions,
    evaluation: view.evaluation,
    created_at: view.created_at,
    updated_at: view.updated_at,
    session_expires_at: iso(code.expires_at),
  };
}

const publicActor = (code: PublicCodeRow): Actor => ({ type: 'public', id: code.id });

async function publicMove(svc: Parameters<typeof dbOf>[0], ctx: Context<{ code: string }>, to: string, via: string) {
  const db = dbOf(svc);
  const code = await resolveCode(db, ctx.params.code);
  const actor = publicActor(code);
  const result = await moveTask(db, { entityId: code.entity_id, taskId: code.task_id, to, actor, via });
  emitStatusChanged(ctx, result, actor, via);
  return publicView(svc, result.row, code);
}

const viewTask: TasksAction = {
  rest: 'GET /:code',
  auth: false,
  summary: 'See a task by its public session code',
  tags: ['public task review'],
  params: CODE,
  response: PUBLIC_TASK_SCHEMA,
  async handler(ctx: Context<{ code: string }>) {
    const code = await resolveCode(dbOf(this), ctx.params.code);
    return publicView(this, await getTask(dbOf(this), code.entity_id, code.task_id), code);
  },
};

const updateStatus: TasksAction = {
  rest: 'POST /:code/update-status',
  workspaceOf: publicCodeWorkspace,
  auth: false,
  summary: 'Move the task (through the state machine)',
  tags: ['public task review'],
  params: { ...CODE, status: STATUS_RULE },
  response: PUBLIC_TASK_SCHEMA,
  handler(ctx: Context<{ code: string; status: string }>) {
    return publicMove(this, ctx, ctx.params.status, 'public_review');
  },
};

const complete: TasksAction = {
  rest: 'POST /:code/complete',
  workspaceOf: publicCodeWorkspace,
  auth: false,
  summary: 'Complete the task (a legal move to completed)',
  tags: ['public task review'],
  params: CODE,
  response: PUBLIC_TASK_SCHEMA,
  handler(ctx: Context<{ code: string }>) {
    return publicMove(this, ctx, COMPLETE_TARGET, 'public_review');
  },
};

const evaluate: TasksAction = {
  rest: 'POST /:code/evaluate',
  workspaceOf: publicCodeWorkspace,
  auth: false,
  summary: 'Rate the work (1 to 5) with a comment',
  tags: ['public task review'],
  params: { ...CODE, rating: { type: 'number', integer: true, min: 1, max: 5 }, comment: { type: 'string', max: 5000, optional: true } },
  response: PUBLIC_TASK_SCHEMA,
  async handler(ctx: Context<{ code: string; rating: number; comment?: string }>) {
    const db = dbOf(this);
    const code = await resolveCode(db, ctx.params.code);
    const now = new Date();
    const evaluation = { rating: ctx.params.rating, comment: ctx.params.comment ?? '', evaluated_at: now.toISOString(), code_id: code.id, label: code.label };
    const { row } = await changeTask(db, {
      entityId: code.entity_id,
      taskId: code.task_id,
      actor: publicActor(code),
      now,
      decide: (task) => ({ action: 'evaluate', set: { evaluation }, changes: [{ field: 'evaluation', from: task.evaluation, to: evaluation }] }),
    });
    emitAfterCommit(ctx, 'task.evaluated', { entity_id: row.entity_id, task_id: row.id, rating: evaluation.rating });
    return publicView(this, row, code);
  },
};

export const publicTaskService: ServiceSchema = {
  name: 'public-task',
  settings: { rest: '/public/task' },
  actions: { view: viewTask, updateStatus, complete, evaluate },
} as ServiceSchema;
