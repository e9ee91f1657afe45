import { AGENT_DEFAULT_MAX_ROUNDS, AGENT_MAX_ROUNDS_LIMIT } from '../../kernel/agents-contract.ts';
import { TOOL_NAME_PATTERN } from '../../kernel/tools-contract.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import type { FieldProblem } from '../../kernel/references.ts';

export { AGENT_DEFAULT_MAX_ROUNDS };

export const MAX_TOOLS = 100;
export const AGENT_STATUSES = ['active', 'disabled'] as const;

/** fastest-validator rules of an agent's writable fields, all optional (create makes `name` required). */
export const AGENT_FIELD_PARAMS = {
  name: { type: 'string', trim: true, singleLine: true, min: 1, max: 120, optional: true },
  description: { type: 'string', max: 2000, optional: true },
  instructions: { type: 'string', max: 100_000, optional: true },
  workspace_id: { type: 'uuid', optional: true, nullable: true },
  api_key_id: { type: 'uuid', optional: true, nullable: true },
  model: { type: 'string', trim: true, singleLine: true, min: 1, max: 200, optional: true, nullable: true },
  tools: {
    type: 'array',
    max: MAX_TOOLS,
    optional: true,
    items: { type: 'string', pattern: TOOL_NAME_PATTERN.source, messages: { stringPattern: "The '{field}' field must be a tool name: a lower-case letter, then up to 63 lower-case letters, digits or underscores." } },
  },
  max_rounds: { type: 'number', integer: true, min: 1, max: AGENT_MAX_ROUNDS_LIMIT, convert: false, optional: true },
  is_master: { type: 'boolean', optional: true },
  status: { type: 'enum', values: [...AGENT_STATUSES], optional: true },
} as const;

export interface AgentFieldInput {
  name?: string;
  description?: string;
  instructions?: string;
  workspace_id?: string | null;
  api_key_id?: string | null;
  model?: string | null;
  tools?: string[];
  max_rounds?: number;
  is_master?: boolean;
  status?: (typeof AGENT_STATUSES)[number];
}

export type { FieldProblem };

/** A 422 naming the fields, like the gateway's own validation errors. */
export function invalid(problems: FieldProblem[]): Error {
  return ERRORS.VALIDATION_FAILED(problems.map((p) => p.message).join(' '), problems);
}

/** A tool listed twice, named by its second position. */
export function duplicateTools(tools: string[] | undefined): FieldProblem[] {
  if (!tools) return [];
  const seen = new Map<string, number>();
  const problems: FieldProblem[] = [];
  tools.forEach((name, index) => {
    const first = seen.get(name);
    if (first === undefined) seen.set(name, index);
    else problems.push({ field: `tools[${index}]`, message: `The tool '${name}' is listed twice (tools[${first}]).`, type: 'arrayUnique' });
  });
  return problems;
}

/** A master agent belongs to one workspace. */
export function masterProblem(state: { is_master: boolean; workspace_id: string | null }): FieldProblem[] {
  if (state.is_master && !state.workspace_id) return [{ field: 'is_master', message: 'A master agent needs a workspace_id: an entity-wide agent cannot be a master.', type: 'masterWithoutWorkspace' }];
  return [];
}

/** UUIDs compare as stored (lower case), whatever case the client sent. */
export function lowerIds<T extends { workspace_id?: string | null; api_key_id?: string | null }>(input: T): T {
  const out = { ...input };
  if (typeof out.workspace_id === 'string') out.workspace_id = out.workspace_id.toLowerCase();
  if (typeof out.api_key_id === 'string') out.api_key_id = out.api_key_id.toLowerCase();
  return out;
}
