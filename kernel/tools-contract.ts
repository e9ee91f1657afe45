/**
 * What an agent tool is, for the packages that offer tools (top-level `tools/<name>/`, manifest
 * kind `tool`) and for the agent runtime that finds them in the service registry and calls them.
 * One declaration per tool drives the model's tool list, argument validation, policy, the API's
 * listings and the UI.
 *
 *   // tools/datetime/index.ts
 *   export default defineTool({
 *     name: 'datetime', description: 'Current time, parse, format, add and diff dates in IANA zones.',
 *     parameters: { type: 'object', properties: { op: { type: 'string', enum: ['now', ...] } }, required: ['op'] },
 *     risk: 'low', side_effect: 'none',
 *   }, async (args, { context }) => ({ iso: new Date().toISOString() }));
 *
 * The service is named `tool.<name>`; `metadata.tool` holds the declaration; the action
 * `execute` takes TOOL_EXECUTE_PARAMS. The runtime validates `arguments` against `parameters`
 * before calling (a failing call goes back to the model as a tool error) and checks policy
 * (kernel/tools/policy.ts) first. A tool answers its output (any JSON value); a failure the
 * model should see and may correct is thrown with `toolError(message)` (kernel/tools/errors.ts,
 * `TOOLS_ERR_FAILED`, 422) with a message meant for the model; anything else is a crash of the
 * tool, reported to the model without internal detail. Authors' guide: kernel/tools/README.md.
 */

export const TOOL_RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type ToolRisk = (typeof TOOL_RISK_LEVELS)[number];

/** What running the tool does to the world: decides whether a call in flight when its worker died may be repeated. */
export const TOOL_SIDE_EFFECTS = ['none', 'idempotent', 'non_idempotent'] as const;
export type ToolSideEffect = (typeof TOOL_SIDE_EFFECTS)[number];

export interface ToolDeclaration {
  /** unique, `^[a-z][a-z0-9_]{0,63}$` (what the model calls it) */
  name: string;
  description: string;
  /** JSON Schema of the arguments: an object schema (kernel/json-schema/validate.ts keywords) */
  parameters: Record<string, unknown>;
  risk: ToolRisk;
  side_effect: ToolSideEffect;
  /** grouping for listings (`web`, `tasks`, `files`, ...) */
  category?: string;
}

/** Who is calling and on whose behalf: every tool acts inside this entity (and workspace) only. */
export interface ToolCallContext {
  entity_id: string;
  /** the user the run acts for (its owner); tools that write record it as the actor */
  user_id: string | null;
  workspace_id: string | null;
  agent_id: string | null;
  run_id: string | null;
  step_id: string | null;
  /** the model's tool-call id: stable across a retry of the same invocation (an idempotency key) */
  invocation_id: string | null;
  task_id?: string | null;
  conversation_id?: string | null;
  /** present when a person approved this exact invocation (policy `ask`) */
  approval?: { decision: 'approve'; decided_by: string; decided_at: string; comment: string | null } | null;
}

export interface ToolExecuteParams {
  arguments: Record<string, unknown>;
  context: ToolCallContext;
}

const CONTEXT_ID = { type: 'string', min: 1, max: 128, optional: true, nullable: true } as const;

/**
 * fastest-validator params of every tool's `execute` action: `arguments` an object (checked
 * against the declaration's `parameters` by the tool itself, kernel/tools/define.ts), `context`
 * with at least `entity_id`; further context keys are let through for later additions.
 */
export const TOOL_EXECUTE_PARAMS = {
  arguments: { type: 'object' },
  context: {
    type: 'object',
    props: {
      entity_id: { type: 'string', min: 1, max: 128 },
      user_id: CONTEXT_ID,
      workspace_id: CONTEXT_ID,
      agent_id: CONTEXT_ID,
      run_id: CONTEXT_ID,
      step_id: CONTEXT_ID,
      invocation_id: { ...CONTEXT_ID, max: 256 },
      task_id: CONTEXT_ID,
      conversation_id: CONTEXT_ID,
      approval: { type: 'object', optional: true, nullable: true },
    },
  },
} as const;

export const TOOL_SERVICE_PREFIX = 'tool.';
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** The decision policy gives for one tool in one call. */
export type ToolDecision = 'allow' | 'ask' | 'deny';

export interface ToolPolicyVerdict {
  decision: ToolDecision;
  /** which rule decided, for people and for the model (`governance rule`, `risk limit high > medium`, `not bound to the agent`, ...) */
  reason: string;
}
