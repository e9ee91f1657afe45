import type { JSONSchema } from '../../kernel/openapi/types.ts';

/** Response schemas (they drive /api/openapi.json) and shared request params. */
const nullableString = { type: ['string', 'null'] };
const anyValue = {};

const POSITION_SCHEMA = { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] };

export const STEP_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    name: { type: 'string' },
    config: { type: 'object' },
    next: { type: 'array', items: { type: 'string' } },
    position: { ...POSITION_SCHEMA, description: 'Where an editor drew the step; kept with the definition, ignored at run time.' },
  },
  required: ['id', 'type', 'config', 'next'],
};

export const DEFINITION_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    description: { type: 'string' },
    trigger_type: { type: 'string', enum: ['manual', 'webhook', 'schedule', 'event', 'workspace_event'] },
    steps: { type: 'array', items: STEP_SCHEMA },
    variables: { type: 'object' },
    version: { type: 'integer', description: 'Incremented on every save.' },
    created_by: nullableString,
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'description', 'trigger_type', 'steps', 'variables', 'version', 'created_at', 'updated_at'],
};

export const NODE_TYPE_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    version: { type: 'number' },
    category: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    config_schema: { type: 'object', description: 'JSON Schema of the step config.' },
    outputs: { type: 'array', items: { type: 'string' } },
    branch_targets: { type: 'array', items: { type: 'string' } },
    entry: { type: 'boolean' },
    skip_at_runtime: { type: 'boolean' },
    uncertain_effect: { description: 'true, false, or {config_key, values}: when the step has an effect that must be reconciled rather than repeated.' },
    loop: { type: 'boolean', description: 'A loop construct: the one cycle a definition may have goes through its body branch back to it.' },
    side_effect: { type: 'string', enum: ['none', 'idempotent', 'non_idempotent'], description: 'What running the step does outside the run.' },
    failures: { type: 'object', additionalProperties: { type: 'string' }, description: 'Error codes a failed step of this type records, with when.' },
    service: { type: 'string' },
    package: nullableString,
    nodes: { type: 'array', items: { type: 'string' } },
  },
  required: ['type', 'category', 'config_schema', 'outputs', 'uncertain_effect', 'service', 'nodes'],
};

export const BINDING_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    workflow_id: { type: 'string', format: 'uuid' },
    workspace_id: { type: 'string', format: 'uuid' },
    trigger: { type: 'object', properties: { type: { type: 'string', enum: ['manual', 'webhook', 'schedule', 'event', 'workspace_event'] } }, required: ['type'] },
    variables: { type: 'object' },
    enabled: { type: 'boolean' },
    chat_entrypoint: { type: 'boolean', description: "Messages to the workspace's chat (its thread, or a conversation of the workspace with no agent chosen) start a run of this binding, whose progress is projected into the conversation. At most one enabled per workspace (409 WORKFLOWS_ERR_CHAT_ENTRYPOINT_TAKEN)." },
    has_webhook_token: { type: 'boolean' },
    webhook_token: { type: 'string', description: 'Only in the create and rotate responses; store it, it is not shown again.' },
    webhook_url: { type: 'string', description: 'Only in the create and rotate responses.' },
    created_by: nullableString,
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'workflow_id', 'workspace_id', 'trigger', 'variables', 'enabled', 'chat_entrypoint', 'has_webhook_token', 'created_at', 'updated_at'],
};

export const RECEIPT_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    step_id: { type: 'string' },
    type: nullableString,
    status: { type: 'string', enum: ['running', 'completed', 'failed', 'skipped', 'waiting', 'needs_reconciliation', 'reconciled'] },
    attempt: { type: 'integer' },
    input: anyValue,
    output: anyValue,
    error: anyValue,
    taken: { type: ['array', 'null'], items: { type: 'string' } },
    uncertain: { type: 'boolean' },
    carried_from: nullableString,
    started_at: nullableString,
    finished_at: nullableString,
    duration_ms: { type: ['number', 'null'] },
    execute_ms: { type: ['number', 'null'] },
    artifacts: { type: 'array' },
    child_runs: { type: 'array' },
  },
  required: ['step_id', 'status'],
};

export const RUN_STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;

/** The copy of a definition a run executes (store/definitions.ts `Snapshot`). */
export const SNAPSHOT_SCHEMA: JSONSchema = {
  type: ['object', 'null'],
  description: 'The definition version the run executes, as it was when the run started (later edits do not touch it); null only if that version was removed from the database by hand.',
  properties: {
    format: { type: 'integer', description: 'The snapshot layout (1).' },
    workflow_id: { type: 'string', description: 'The workflow, or what an internal run executes for.' },
    version: { type: 'integer' },
    name: { type: 'string' },
    trigger_type: { type: 'string' },
    steps: { type: 'array', items: STEP_SCHEMA },
    variables: { type: 'object' },
  },
  required: ['format', 'workflow_id', 'version', 'name', 'trigger_type', 'steps', 'variables'],
};

export const RUN_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    workflow_id: { type: 'string', format: 'uuid' },
    workflow_version: { type: 'integer' },
    binding_id: nullableString,
    workspace_id: nullableString,
    owner_id: nullableString,
    trigger_type: { type: 'string' },
    status: { type: 'string', enum: [...RUN_STATUSES] },
    output: anyValue,
    error: anyValue,
    pause: anyValue,
    retry_of: nullableString,
    root_run_id: { type: 'string' },
    retry_from_step: nullableString,
    lineage_attempt: { type: 'integer' },
    recoveries: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    started_at: nullableString,
    finished_at: nullableString,
    snapshot: SNAPSHOT_SCHEMA,
    trigger: anyValue,
    steps: { type: 'array', items: RECEIPT_SCHEMA, description: 'The sanitised trace: one receipt per step reached.' },
  },
  required: ['id', 'workflow_id', 'status', 'root_run_id', 'created_at'],
};

export const RUN_STARTED_SCHEMA: JSONSchema = {
  type: 'object',
  properties: { run_id: { type: 'string', format: 'uuid' }, status: { type: 'string', enum: [...RUN_STATUSES] } },
  required: ['run_id', 'status'],
};

export const STEP_PARAM = {
  type: 'object',
  strict: true,
  props: {
    id: { type: 'string', min: 1, max: 128, pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' },
    type: { type: 'string', min: 1, max: 64 },
    name: { type: 'string', max: 200, optional: true },
    config: { type: 'object', optional: true, default: {} },
    next: { type: 'array', items: { type: 'string', min: 1, max: 128 }, max: 100, optional: true, default: [] },
    position: {
      type: 'object',
      strict: true,
      optional: true,
      props: { x: { type: 'number', finite: true, min: -1e6, max: 1e6 }, y: { type: 'number', finite: true, min: -1e6, max: 1e6 } },
    },
  },
} as const;

export const DEFINITION_PARAMS = {
  name: { type: 'string', min: 1, max: 200, trim: true },
  description: { type: 'string', max: 5000, optional: true },
  trigger_type: { type: 'enum', values: ['manual', 'webhook', 'schedule', 'event', 'workspace_event'], optional: true },
  steps: { type: 'array', items: STEP_PARAM, min: 1, max: 500 },
  variables: { type: 'object', optional: true },
} as const;

export const ID_PARAM = { id: { type: 'string', min: 1, max: 64 } } as const;
export const RUN_ID_PARAM = { run_id: { type: 'string', min: 1, max: 64 } } as const;
