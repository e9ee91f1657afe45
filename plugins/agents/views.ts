import type { AgentView } from '../../kernel/agents-contract.ts';
import { AGENT_MAX_ROUNDS_LIMIT } from '../../kernel/agents-contract.ts';
import type { AgentAttributes } from './model.ts';

/** An agent as the API and other packages see it (kernel/agents-contract.ts), dates as ISO strings. */
export function agentView(row: AgentAttributes): AgentView {
  return {
    id: row.id,
    entity_id: row.entity_id,
    workspace_id: row.workspace_id,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    api_key_id: row.api_key_id,
    model: row.model,
    tools: [...(row.tools ?? [])],
    max_rounds: row.max_rounds,
    is_master: row.is_master,
    status: row.status,
    version: row.version,
    created_by: row.created_by,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

const dateTime = { type: 'string', format: 'date-time' };
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

export const AGENT_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    entity_id: { type: 'string' },
    workspace_id: { ...nullable({ type: 'string', format: 'uuid' }), description: 'null: entity-wide (usable in every workspace)' },
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: 'string', maxLength: 2000 },
    instructions: { type: 'string', maxLength: 100_000, description: 'The system prompt.' },
    api_key_id: { ...nullable({ type: 'string', format: 'uuid' }), description: "null: the entity's default model provider key" },
    model: { ...nullable({ type: 'string' }), description: "null: the key's default model" },
    tools: { type: 'array', items: { type: 'string' }, maxItems: 100, description: 'Names of the bound tools.' },
    max_rounds: { type: 'integer', minimum: 1, maximum: AGENT_MAX_ROUNDS_LIMIT },
    is_master: { type: 'boolean', description: "The workspace's master agent (at most one per workspace)." },
    status: { type: 'string', enum: ['active', 'disabled'] },
    version: { type: 'integer', minimum: 1, description: 'Incremented on every write.' },
    created_by: nullable({ type: 'string' }),
    created_at: dateTime,
    updated_at: dateTime,
  },
  required: ['id', 'entity_id', 'workspace_id', 'name', 'description', 'instructions', 'api_key_id', 'model', 'tools', 'max_rounds', 'is_master', 'status', 'version', 'created_by', 'created_at', 'updated_at'],
};
