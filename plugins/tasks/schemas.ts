import { TASK_STATUSES } from './domain/state-machine.ts';

/** JSON schemas of what the task routes answer (they drive /api/openapi.json). */

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const STRING = { type: 'string' };
const DATE_TIME = { type: 'string', format: 'date-time' };
const STATUS = { type: 'string', enum: [...TASK_STATUSES] };
const OBJECT = { type: 'object' };

export const SLA_STATE_SCHEMA = {
  type: 'object',
  properties: {
    response_due_at: nullable(DATE_TIME),
    resolution_due_at: nullable(DATE_TIME),
    due_at: nullable(DATE_TIME),
    breached: { type: 'boolean' },
    breached_at: nullable(DATE_TIME),
  },
  required: ['due_at', 'breached', 'breached_at'],
};

export const TASK_SCHEMA = {
  type: 'object',
  properties: {
    id: STRING,
    entity_id: STRING,
    workspace_id: nullable(STRING),
    parent_id: nullable(STRING),
    title: STRING,
    description: { type: 'string', description: 'Markdown' },
    status: STATUS,
    board_column: STRING,
    priority: { type: 'integer', minimum: 1, maximum: 5 },
    assignee: {
      description: 'A user or a specific agent; null means the master agent handles the task.',
      anyOf: [{ type: 'object', properties: { type: { type: 'string', enum: ['user', 'agent'] }, id: STRING }, required: ['type', 'id'] }, { type: 'null' }],
    },
    deadline: nullable(DATE_TIME),
    category_id: nullable(STRING),
    requester: nullable(STRING),
    output_files: { type: 'array', items: OBJECT },
    sla_policy_id: nullable(STRING),
    sla: nullable(SLA_STATE_SCHEMA),
    pending_request: nullable(OBJECT),
    delivery_review: nullable(OBJECT),
    evaluation: nullable(OBJECT),
    allowed_transitions: { type: 'array', items: STATUS },
    version: { type: 'integer' },
    created_by: nullable(STRING),
    created_at: DATE_TIME,
    updated_at: DATE_TIME,
  },
  required: ['id', 'title', 'status', 'priority', 'assignee', 'version', 'allowed_transitions', 'created_at', 'updated_at'],
};

export const EXECUTION_ENTRY_SCHEMA = {
  type: 'object',
  properties: { id: STRING, kind: STRING, data: OBJECT, created_at: DATE_TIME },
  required: ['id', 'kind', 'data', 'created_at'],
};

export const TASK_DETAIL_SCHEMA = {
  type: 'object',
  properties: {
    ...TASK_SCHEMA.properties,
    execution_record: { type: 'array', items: EXECUTION_ENTRY_SCHEMA, description: 'Plan steps, tool calls, status changes and dispatches of agent runs, oldest first.' },
    subtasks: { type: 'array', items: { type: 'object', properties: { id: STRING, title: STRING, status: STATUS }, required: ['id', 'title', 'status'] } },
  },
  required: [...TASK_SCHEMA.required, 'execution_record', 'subtasks'],
};

export const HISTORY_ENTRY_SCHEMA = {
  type: 'object',
  properties: {
    id: STRING,
    action: STRING,
    actor: { type: 'object', properties: { type: STRING, id: nullable(STRING) } },
    changes: { type: 'array', items: { type: 'object', properties: { field: STRING, from: {}, to: {} }, required: ['field'] } },
    created_at: DATE_TIME,
  },
  required: ['id', 'action', 'actor', 'changes', 'created_at'],
};

export const CONSTANTS_SCHEMA = {
  type: 'object',
  properties: {
    statuses: { type: 'array', items: STATUS },
    initial_statuses: { type: 'array', items: STATUS },
    default_status: STATUS,
    transitions: { type: 'array', items: { type: 'object', properties: { from: STATUS, to: STATUS, name: STRING }, required: ['from', 'to', 'name'] } },
    allowed_targets: { type: 'object', additionalProperties: { type: 'array', items: STATUS } },
    resume_on_comment: { type: 'object', additionalProperties: STATUS },
    retry: { type: 'object', properties: { from: STATUS, to: STATUS } },
    resolved_statuses: { type: 'array', items: STATUS },
    board_columns: { type: 'array', items: { type: 'object', properties: { key: STRING, title: STRING, statuses: { type: 'array', items: STATUS } } } },
    priorities: { type: 'array', items: { type: 'object', properties: { value: { type: 'integer' }, label: STRING } } },
    default_priority: { type: 'integer' },
    assignee_types: { type: 'array', items: STRING },
  },
  required: ['statuses', 'transitions', 'board_columns', 'priorities'],
};

const CARD_FIELDS = Object.fromEntries(Object.entries(TASK_SCHEMA.properties).filter(([k]) => !['description', 'output_files', 'pending_request', 'delivery_review', 'evaluation', 'created_by'].includes(k)));

export const TASK_CARD_SCHEMA = {
  type: 'object',
  properties: { ...CARD_FIELDS, awaiting_input: { type: 'boolean', description: 'a run waits on a HITL answer or an approval' } },
  required: ['id', 'title', 'status', 'priority', 'assignee', 'version', 'allowed_transitions', 'awaiting_input'],
};

export const BOARD_SCHEMA = {
  type: 'object',
  properties: {
    columns: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          key: STRING,
          title: STRING,
          statuses: { type: 'array', items: STATUS },
          count: { type: 'integer' },
          counts: { type: 'object', additionalProperties: { type: 'integer' } },
          items: { type: 'array', items: TASK_CARD_SCHEMA },
        },
        required: ['key', 'title', 'statuses', 'count', 'counts', 'items'],
      },
    },
    total: { type: 'integer' },
  },
  required: ['columns', 'total'],
};

export const BOARD_PREFERENCES_SCHEMA = {
  type: 'object',
  properties: {
    mode: { type: 'string', enum: ['board', 'list'] },
    visible_columns: { type: 'array', items: STRING },
    column_order: { type: 'array', items: STRING },
    updated_at: nullable(DATE_TIME),
  },
  required: ['mode', 'visible_columns', 'column_order'],
};
