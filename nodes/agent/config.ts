import { AGENT_DEFAULT_MAX_ROUNDS, AGENT_MAX_ROUNDS_LIMIT } from '../../kernel/agents-contract.ts';

/** The step config of an `agent` node (its one declaration: validation, OpenAPI, the editor's form). */
export interface AgentConfig {
  agent_id?: string | null;
  prompt: string;
  system?: string;
  tools?: string[] | null;
  model?: string | null;
  api_key_id?: string | null;
  max_rounds?: number | null;
  task_id?: string | null;
  goal_id?: string | null;
  conversation_id?: string | null;
  history?: { role: 'user' | 'assistant'; content: string }[] | null;
  files?: { object_key: string; media_type: string; filename?: string }[] | null;
  contact_role?: 'external' | 'member' | 'admin' | null;
  timeout?: number | null;
}

export const AGENT_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    agent_id: { type: ['string', 'null'], maxLength: 64, default: null, description: 'A workspace agent: its instructions, bound tools, model, key and round cap are the defaults of the keys below (null: none).', examples: ['0197c0de-5a1e-7000-8000-000000000002'] },
    prompt: { type: 'string', minLength: 1, maxLength: 200_000, description: 'What the agent is asked to do (templates allowed).', examples: ['Summarise {{fetch.output.body}}'] },
    system: { type: 'string', maxLength: 100_000, default: '', description: "System prompt; with agent_id it is added after the agent's instructions (empty: none).", examples: ['Answer in the customer\'s language.'] },
    tools: { type: ['array', 'null'], maxItems: 100, items: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' }, default: null, description: "Tool names the agent may use (null: the agent's bound tools, none without agent_id); always under the workspace's policy.", examples: [['http_request', 'tasks']] },
    model: { type: ['string', 'null'], maxLength: 200, default: null, description: "Model name (null: the agent's, else the key's default model).", examples: ['gpt-4o-mini'] },
    api_key_id: { type: ['string', 'null'], maxLength: 64, default: null, description: "Model provider key (null: the agent's, else the entity's default key).", examples: ['0197c0de-5a1e-7000-8000-000000000001'] },
    max_rounds: { type: ['integer', 'null'], minimum: 1, maximum: AGENT_MAX_ROUNDS_LIMIT, default: null, description: `Round cap: model turns at most; past it the step fails with AGENT_ROUND_CAP (null: the agent's, else ${AGENT_DEFAULT_MAX_ROUNDS}).`, examples: [5] },
    task_id: { type: ['string', 'null'], maxLength: 64, default: null, description: 'The task this run works on: tool calls and plan steps go to its execution record (null: none).', examples: ['{{trigger.task_id}}'] },
    goal_id: { type: ['string', 'null'], maxLength: 64, default: null, description: "The goal this run produces a plan for (with agent_id and a workspace): it is offered propose_plan, and the plan it proposes is the goal's (null: none).", examples: ['{{trigger.goal_id}}'] },
    conversation_id: { type: ['string', 'null'], maxLength: 64, default: null, description: 'The chat conversation this run answers in (null: none).', examples: ['{{trigger.conversation_id}}'] },
    history: {
      type: ['array', 'null'],
      default: null,
      examples: [[{ role: 'user', content: 'Where is my order?' }, { role: 'assistant', content: 'Which order number?' }]],
      maxItems: 200,
      items: { type: 'object', properties: { role: { type: 'string', enum: ['user', 'assistant'] }, content: { type: 'string', maxLength: 200_000 } }, required: ['role', 'content'], additionalProperties: false },
      description: 'Earlier turns of the conversation, oldest first (null: none).',
    },
    files: {
      type: ['array', 'null'],
      default: null,
      examples: [[{ object_key: 'uploads/e-1/invoice.pdf', media_type: 'application/pdf', filename: 'invoice.pdf' }]],
      maxItems: 20,
      items: { type: 'object', properties: { object_key: { type: 'string', maxLength: 1024 }, media_type: { type: 'string', maxLength: 255 }, filename: { type: 'string', maxLength: 255 } }, required: ['object_key', 'media_type'], additionalProperties: false },
      description: 'Files (in the object store) given to the model with the prompt (null: none).',
    },
    contact_role: { type: ['string', 'null'], enum: ['external', 'member', 'admin', null], default: null, description: "A channel contact's role: narrows the tools the agent may use in that conversation (null: not a channel conversation).", examples: ['external'] },
    timeout: { type: ['number', 'null'], exclusiveMinimum: 0, default: null, description: 'Seconds the whole step may take; past it the step fails with STEP_TIMEOUT (null: no outer deadline).', examples: [300] },
  },
  required: ['prompt'],
  additionalProperties: false,
} as const;
