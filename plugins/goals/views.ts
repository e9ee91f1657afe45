import { PLAN_STATUSES, PLAN_STEP_STATUSES, type PlanView } from '../../kernel/agents-contract.ts';
import { GOAL_STATUSES, METRIC_DIRECTIONS, type GoalAttributes, type GoalMetric, type PlanAttributes } from './model.ts';

export interface GoalView {
  id: string;
  entity_id: string;
  workspace_id: string;
  title: string;
  objective: string;
  metrics: GoalMetric[];
  status: GoalAttributes['status'];
  agent_id: string | null;
  due_at: string | null;
  created_by: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);

export function goalView(row: GoalAttributes): GoalView {
  return {
    id: row.id,
    entity_id: row.entity_id,
    workspace_id: row.workspace_id,
    title: row.title,
    objective: row.objective,
    metrics: row.metrics ?? [],
    status: row.status,
    agent_id: row.agent_id,
    due_at: iso(row.due_at),
    created_by: row.created_by,
    version: row.version,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function planView(row: PlanAttributes): PlanView {
  return {
    id: row.id,
    entity_id: row.entity_id,
    workspace_id: row.workspace_id,
    goal_id: row.goal_id,
    task_id: row.task_id,
    agent_id: row.agent_id,
    run_id: row.run_id,
    summary: row.summary,
    steps: row.steps ?? [],
    status: row.status,
    requires_approval: row.requires_approval,
    decided_by: row.decided_by,
    decided_at: iso(row.decided_at),
    decision_comment: row.decision_comment,
    created_by: row.created_by,
    version: row.version,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const dateTime = { type: 'string', format: 'date-time' };
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const uuid = { type: 'string', format: 'uuid' };

export const METRIC_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    target: { type: 'number' },
    unit: nullable({ type: 'string' }),
    current: nullable({ type: 'number' }),
    direction: { type: 'string', enum: [...METRIC_DIRECTIONS], description: 'increase: the goal is met at or above the target; decrease: at or below.' },
  },
  required: ['name', 'target', 'unit', 'current', 'direction'],
};

export const GOAL_SCHEMA = {
  type: 'object',
  properties: {
    id: uuid,
    entity_id: { type: 'string' },
    workspace_id: uuid,
    title: { type: 'string', maxLength: 200 },
    objective: { type: 'string', maxLength: 10_000 },
    metrics: { type: 'array', items: METRIC_SCHEMA, maxItems: 20 },
    status: { type: 'string', enum: [...GOAL_STATUSES] },
    agent_id: { ...nullable(uuid), description: 'The agent that owns the goal, if any.' },
    due_at: nullable(dateTime),
    created_by: nullable({ type: 'string' }),
    version: { type: 'integer', minimum: 1, description: 'Incremented on every write.' },
    created_at: dateTime,
    updated_at: dateTime,
  },
  required: ['id', 'entity_id', 'workspace_id', 'title', 'objective', 'metrics', 'status', 'agent_id', 'due_at', 'created_by', 'version', 'created_at', 'updated_at'],
};

export const PLAN_SCHEMA = {
  type: 'object',
  properties: {
    id: uuid,
    entity_id: { type: 'string' },
    workspace_id: uuid,
    goal_id: nullable(uuid),
    task_id: nullable(uuid),
    agent_id: uuid,
    run_id: nullable({ type: 'string' }),
    summary: { type: 'string' },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: { title: { type: 'string' }, detail: nullable({ type: 'string' }), status: { type: 'string', enum: [...PLAN_STEP_STATUSES] } },
        required: ['title', 'detail', 'status'],
      },
    },
    status: { type: 'string', enum: [...PLAN_STATUSES] },
    requires_approval: { type: 'boolean', description: 'Whether a person had to approve it (else it was approved on proposal).' },
    decided_by: { ...nullable({ type: 'string' }), description: 'The user who approved or rejected it; null while pending and for an automatic approval.' },
    decided_at: nullable(dateTime),
    decision_comment: nullable({ type: 'string' }),
    created_by: nullable({ type: 'string' }),
    version: { type: 'integer', minimum: 1 },
    created_at: dateTime,
    updated_at: dateTime,
  },
  required: ['id', 'entity_id', 'workspace_id', 'goal_id', 'task_id', 'agent_id', 'run_id', 'summary', 'steps', 'status', 'requires_approval', 'decided_by', 'decided_at', 'decision_comment', 'created_by', 'version', 'created_at', 'updated_at'],
};
