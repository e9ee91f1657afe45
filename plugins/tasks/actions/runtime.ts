import type { Context } from 'moleculer';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { STATUS_RULE } from '../fields.ts';
import { appendExecution, getTask, type Actor } from '../db/task-store.ts';
import { taskView, type DeliveryReview, type OutputFile, type PendingRequest } from '../db/task-row.ts';
import { changeTask } from '../ops/change.ts';
import { emitStatusChanged, moveTask } from '../ops/move.ts';
import { dbOf, emitAfterCommit, type TasksAction } from '../service.ts';

/**
 * The agent runtime's side of a task (internal: other services call these through the broker;
 * no HTTP route). There is no user in ctx.meta, so each call names the entity and the agent.
 */

const SCOPE = {
  entity_id: { type: 'string', min: 1, max: 64 },
  task_id: { type: 'string', min: 1, max: 64 },
  agent_id: { type: 'string', min: 1, max: 128, optional: true, nullable: true },
  run_id: { type: 'string', min: 1, max: 128, optional: true },
} as const;

interface Scope {
  entity_id: string;
  task_id: string;
  agent_id?: string | null;
  run_id?: string;
}

const agentActor = (p: Scope): Actor => ({ type: 'agent', id: p.agent_id ?? null });

/** A run moves its task (through the machine, like anyone); the change lands in the execution record too. */
export const runSetStatus: TasksAction = {
  visibility: 'public',
  params: { ...SCOPE, status: STATUS_RULE },
  async handler(ctx: Context<Scope & { status: string }>) {
    const p = ctx.params;
    const actor = agentActor(p);
    const task = await getTask(dbOf(this), p.entity_id, p.task_id);
    const result = await moveTask(dbOf(this), {
      entityId: p.entity_id,
      taskId: task.id,
      to: p.status,
      actor,
      via: 'run',
      execution: [{ kind: 'status_change', data: { from: task.status, to: p.status, run_id: p.run_id ?? null, agent_id: p.agent_id ?? null } }],
    });
    emitStatusChanged(ctx, result, actor, 'run');
    return taskView(result.row);
  },
};

/** Plan steps, tool calls and notes of a run, appended to the execution record. */
export const runRecord: TasksAction = {
  visibility: 'public',
  params: {
    ...SCOPE,
    entries: { type: 'array', min: 1, max: 100, items: { type: 'object', strict: true, props: { kind: { type: 'enum', values: ['plan_step', 'tool_call', 'note'] }, data: { type: 'object' } } } },
  },
  async handler(ctx: Context<Scope & { entries: { kind: string; data: Record<string, unknown> }[] }>) {
    const p = ctx.params;
    const db = dbOf(this);
    const task = await getTask(db, p.entity_id, p.task_id);
    await appendExecution(db, p.entity_id, task.id, p.entries.map((e) => ({ kind: e.kind, data: { ...e.data, run_id: p.run_id ?? null, agent_id: p.agent_id ?? null } })), new Date());
    return { recorded: p.entries.length };
  },
};

/** A run asks a person: a HITL question or an approval. One request may be pending at a time. */
export const runRaiseRequest: TasksAction = {
  visibility: 'public',
  params: {
    ...SCOPE,
    kind: { type: 'enum', values: ['hitl', 'approval'] },
    prompt: { type: 'string', min: 1, max: 20_000 },
    options: { type: 'array', items: { type: 'string', min: 1, max: 200 }, max: 20, optional: true },
  },
  async handler(ctx: Context<Scope & { kind: PendingRequest['kind']; prompt: string; options?: string[] }>) {
    const p = ctx.params;
    const now = new Date();
    const request: PendingRequest = { id: newId(), kind: p.kind, prompt: p.prompt, ...(p.options ? { options: p.options } : {}), raised_at: now.toISOString(), ...(p.run_id ? { run_id: p.run_id } : {}) };
    const { row } = await changeTask(dbOf(this), {
      entityId: p.entity_id,
      taskId: p.task_id,
      actor: agentActor(p),
      now,
      decide: (task) => {
        if (task.pending_request) throw ERRORS.CONFLICT(`Task '${task.id}' already waits on request '${task.pending_request.id}'.`, { task_id: task.id, pending_request_id: task.pending_request.id });
        return { action: 'request_raised', set: { pending_request: request }, changes: [{ field: 'pending_request', from: null, to: request }], execution: [{ kind: 'request_raised', data: { ...request } }] };
      },
    });
    emitAfterCommit(ctx, 'task.request.raised', { entity_id: row.entity_id, task_id: row.id, request });
    return taskView(row);
  },
};

/** A run pauses in delivery review at a plan and state version (each new pause supersedes the last). */
export const runPauseForReview: TasksAction = {
  visibility: 'public',
  params: { ...SCOPE, plan_id: { type: 'string', min: 1, max: 128 }, state_version: { type: 'number', integer: true, min: 0 } },
  async handler(ctx: Context<Scope & { plan_id: string; state_version: number }>) {
    const p = ctx.params;
    const now = new Date();
    const review: DeliveryReview = { state: 'paused', plan_id: p.plan_id, state_version: p.state_version, paused_at: now.toISOString(), ...(p.run_id ? { run_id: p.run_id } : {}) };
    const { row } = await changeTask(dbOf(this), {
      entityId: p.entity_id,
      taskId: p.task_id,
      actor: agentActor(p),
      now,
      decide: (task) => ({ action: 'delivery_review_paused', set: { delivery_review: review }, changes: [{ field: 'delivery_review', from: task.delivery_review, to: review }], execution: [{ kind: 'delivery_review_paused', data: { ...review } }] }),
    });
    return taskView(row);
  },
};

/** Files a run generated, added to the task's output files. */
export const runAddOutputFiles: TasksAction = {
  visibility: 'public',
  params: {
    ...SCOPE,
    files: {
      type: 'array',
      min: 1,
      max: 100,
      items: { type: 'object', props: { name: { type: 'string', min: 1, max: 255 }, object_key: { type: 'string', max: 512, optional: true }, url: { type: 'string', max: 2048, optional: true }, size: { type: 'number', integer: true, min: 0, optional: true }, content_type: { type: 'string', max: 255, optional: true } } },
    },
  },
  async handler(ctx: Context<Scope & { files: OutputFile[] }>) {
    const p = ctx.params;
    const now = new Date();
    const added = p.files.map((f) => ({ ...f, created_at: now.toISOString() }));
    const { row } = await changeTask(dbOf(this), {
      entityId: p.entity_id,
      taskId: p.task_id,
      actor: agentActor(p),
      now,
      decide: (task) => ({ action: 'output_files_added', set: { output_files: [...(task.output_files ?? []), ...added] }, changes: [{ field: 'output_files', from: null, to: added }] }),
    });
    return taskView(row);
  },
};
