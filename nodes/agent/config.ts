import { AGENT_MAX_ROUNDS_LIMIT } from '../../kernel/agents-contract.ts';

/** The step config of an `agent` node (its one declaration: validation, OpenAPI, the editor's form). */
export interface AgentConfig {
  agent_id?: string;
  prompt: string;
  system?: string;
  tools?: string[];
  model?: string;
  api_key_id?: string;
  max_rounds?: number;
  task_id?: string;
  goal_id?: string;
  conversation_id?: string;
  history?: { role: 'user' | 'assistant'; content: string }[];
  files?: { object_key: string; media_type: string; filename?: string }[];
  contact_role?: 'external' | 'member' | 'admin';
  timeout?: number | null;
}

export const AGENT_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    agent_id: { type: 'string', maxLength: 64, description: 'A workspace agent: its instructions, bound tools, model, key and round cap are the defaults of the keys below.', examples: ['0197c0de-…'] },
    prompt: { type: 'string', minLength: 1, maxLength: 200_000, description: 'What the agent is asked to do (templates allowed).', examples: ['Summarise {{fetch.output.body}}'] },
    system: { type: 'string', maxLength: 100_000, description: "System prompt; with agent_id it is added after the agent's instructions." },
    tools: { type: 'array', maxItems: 100, items: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' }, description: "Tool names the agent may use (default: the agent's bound tools); always under the workspace's policy." },
    model: { type: 'string', maxLength: 200, description: "Model name (default: the agent's, else the key's default model)." },
    api_key_id: { type: 'string', maxLength: 64, description: "Model provider key (default: the agent's, else the entity's default key)." },
    max_rounds: { type: 'integer', minimum: 1, maximum: AGENT_MAX_ROUNDS_LIMIT, description: 'Round cap: model turns at most; past it the step fails with AGENT_ROUND_CAP.' },
    task_id: { type: 'string', maxLength: 64, description: "The task this run works on: tool calls and plan steps go to its execution record." },
    goal_id: { type: 'string', maxLength: 64, description: "The goal this run produces a plan for (with agent_id and a workspace): it is offered propose_plan, and the plan it proposes is the goal's." },
    conversation_id: { type: 'string', maxLength: 64, description: 'The chat conversation this run answers in.' },
    history: {
      type: 'array',
      maxItems: 200,
      items: { type: 'object', properties: { role: { type: 'string', enum: ['user', 'assistant'] }, content: { type: 'string', maxLength: 200_000 } }, required: ['role', 'content'], additionalProperties: false },
      description: 'Earlier turns of the conversation, oldest first.',
    },
    files: {
      type: 'array',
      maxItems: 20,
      items: { type: 'object', properties: { object_key: { type: 'string', maxLength: 1024 }, media_type: { type: 'string', maxLength: 255 }, filename: { type: 'string', maxLength: 255 } }, required: ['object_key', 'media_type'], additionalProperties: false },
      description: 'Files (in the object store) given to the model with the prompt.',
    },
    contact_role: { type: 'string', enum: ['external', 'member', 'admin'], description: "A channel contact's role: narrows the tools the agent may use in that conversation." },
    timeout: { type: ['number', 'null'], description: 'Seconds the whole step may take (default: no outer deadline).' },
  },
  required: ['prompt'],
  additionalProperties: false,
} as const;
