import type { Context } from 'moleculer';
import { PAGING_PARAMS, pageSchema } from '../../kernel/tenancy/paging.ts';

const RUN_STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'];

export const EXECUTION_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The run id (also readable at GET /api/v1/workflows/runs/{run_id}, with its checkpoints as the tool timeline).' },
    agent_id: { type: ['string', 'null'] },
    task_id: { type: ['string', 'null'] },
    goal_id: { type: ['string', 'null'], description: 'The goal a planning run produces a plan for (POST /api/v1/goals/{goal_id}/plan).' },
    conversation_id: { type: ['string', 'null'] },
    workspace_id: { type: ['string', 'null'] },
    status: { type: 'string', enum: RUN_STATUSES },
    reason: { type: ['string', 'null'], description: 'Why it started: assigned_at_creation, unassigned_at_creation (the master agent took a task created unassigned, as the workspace governance says), assigned, mention, retry, chat, goal_plan (POST /api/v1/goals/{goal_id}/plan).' },
    rounds: { type: 'integer', description: 'Model turns committed so far.' },
    tool_calls: { type: 'integer', description: 'Tool calls committed so far (including one in flight).' },
    pause: { type: ['object', 'null'], description: 'While paused: what it waits for (runtime_approval or question, with the message).' },
    output: {},
    error: {},
    created_at: { type: 'string', format: 'date-time' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'agent_id', 'task_id', 'workspace_id', 'status', 'rounds', 'tool_calls', 'created_at'],
};

type Row = Record<string, unknown> & { trigger?: Record<string, unknown> | null; created_at: Date | string; started_at: Date | string | null; finished_at: Date | string | null };

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function executionView(r: Row) {
  const trigger = r.trigger ?? {};
  return {
    id: r.id, agent_id: trigger.agent_id ?? null, task_id: trigger.task_id ?? null, goal_id: trigger.goal_id ?? null, conversation_id: trigger.conversation_id ?? null,
    workspace_id: r.workspace_id ?? null, status: r.status, reason: trigger.reason ?? null, rounds: r.rounds, tool_calls: r.tool_calls,
    pause: r.pause ?? null, output: r.output ?? null, error: r.error ?? null,
    created_at: iso(r.created_at), started_at: iso(r.started_at), finished_at: iso(r.finished_at),
  };
}

const ID_FILTER = { type: 'uuid', optional: true } as const;

/** `GET /api/v1/executions`: agent runs (task, chat), newest first, with filters. */
export const listExecutions = {
  rest: 'GET /',
  summary: 'Agent executions',
  description: 'Agent runs of your entity, newest first: filter by agent_id, task_id, conversation_id, workspace_id, status. Each is a durable run; its model turns and tool calls are in GET /api/v1/workflows/runs/{id}.',
  tags: ['agents'],
  params: {
    ...PAGING_PARAMS,
    agent_id: ID_FILTER,
    task_id: ID_FILTER,
    conversation_id: ID_FILTER,
    workspace_id: ID_FILTER,
    status: { type: 'enum', values: RUN_STATUSES, optional: true },
  },
  response: pageSchema(EXECUTION_SCHEMA),
  async handler(ctx: Context<Record<string, unknown> & { limit: number; offset: number }>) {
    const page = await ctx.call<{ items: Row[]; total: number }, unknown>('workflows.agentRuns', ctx.params);
    return { items: page.items.map(executionView), total: page.total, limit: ctx.params.limit, offset: ctx.params.offset };
  },
};
