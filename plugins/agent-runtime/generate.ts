import type { Context } from 'moleculer';
import { AGENT_DEFAULT_MAX_ROUNDS, AGENT_MAX_ROUNDS_LIMIT } from '../../kernel/agents-contract.ts';
import { validateJsonSchema } from '../../kernel/json-schema/validate.ts';
import { MODELS_GENERATE_ACTION, type GenerateMessage, type GenerateParams, type GenerateResult } from '../../kernel/models-generate-contract.ts';
import { listTools } from '../../kernel/tools/registry.ts';
import { AGENT_RUNTIME_ERR } from './errors.ts';

interface Draft {
  name: string;
  description: string;
  instructions: string;
  tools: string[];
  max_rounds: number;
}

/** The agent schema the model answers against (the create route's limits). */
function draftSchema(toolNames: string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 120 },
      description: { type: 'string', maxLength: 2000 },
      instructions: { type: 'string', minLength: 1, maxLength: 100_000 },
      tools: { type: 'array', maxItems: 100, items: toolNames.length ? { type: 'string', enum: toolNames } : { type: 'string', maxLength: 0 } },
      max_rounds: { type: 'integer', minimum: 1, maximum: AGENT_MAX_ROUNDS_LIMIT },
    },
    required: ['name', 'description', 'instructions', 'tools', 'max_rounds'],
    additionalProperties: false,
  };
}

type Outcome = { draft: Draft; result: GenerateResult } | { problems: string[]; text: string; result?: GenerateResult };

/** One structured-output turn: the draft, or what is wrong with the answer (also the models package's own check). */
async function ask(ctx: Context, params: GenerateParams, schema: Record<string, unknown>): Promise<Outcome> {
  try {
    const result = await ctx.call<GenerateResult, GenerateParams>(MODELS_GENERATE_ACTION, params, { timeout: 0 });
    const problems = validateJsonSchema(schema, result.object).map((p) => `${p.path || '(root)'}: ${p.message}`);
    return problems.length ? { problems, text: result.text, result } : { draft: result.object as Draft, result };
  } catch (err) {
    const e = err as { type?: string; data?: { problems?: unknown; text?: unknown } };
    if (e.type !== 'MODELS_ERR_OUTPUT_INVALID') throw err;
    const problems = Array.isArray(e.data?.problems) ? e.data.problems.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))) : ['the answer was not the requested JSON'];
    return { problems, text: typeof e.data?.text === 'string' ? e.data.text : '' };
  }
}

/**
 * `POST /api/v1/agents/generate`: an agent drafted by the entity's model from a prompt, with
 * structured output checked against the agent schema (bound tools only among those loaded).
 * An invalid answer gets one repair turn naming its problems; still invalid is 502
 * AGENTS_ERR_GENERATION_INVALID with the problems. Nothing is stored unless `save: true`
 * (then it is created like POST /agents, 201).
 */
export const generateAgent = {
  rest: 'POST /generate',
  location: '/agents/{agent.id}',
  summary: 'Generate an agent from a prompt',
  tags: ['agents'],
  params: {
    $$strict: true,
    prompt: { type: 'string', trim: true, min: 1, max: 20_000 },
    workspace_id: { type: 'uuid', optional: true },
    api_key_id: { type: 'uuid', optional: true },
    model: { type: 'string', trim: true, min: 1, max: 200, optional: true },
    save: { type: 'boolean', optional: true, default: false },
  },
  response: {
    200: { type: 'object', properties: { saved: { const: false }, draft: { type: 'object' }, rounds: { type: 'integer' }, usage: { type: 'object' } }, required: ['saved', 'draft', 'rounds'] },
    201: { type: 'object', properties: { saved: { const: true }, agent: { type: 'object' }, rounds: { type: 'integer' }, usage: { type: 'object' } }, required: ['saved', 'agent', 'rounds'] },
  },
  async handler(ctx: Context<{ prompt: string; workspace_id?: string; api_key_id?: string; model?: string; save: boolean }>) {
    const p = ctx.params;
    if (p.workspace_id) await ctx.call('workspaces.resolve', { workspace_id: p.workspace_id });
    const tools = listTools(ctx.broker);
    const schema = draftSchema(tools.map((t) => t.name));
    const system = [
      'You design AI agents for a workspace operations platform. Answer with one JSON object: name, description, instructions (the system prompt the agent will run with: its role, how it works, when to ask a person), tools (only names from the list), max_rounds (model turns it may take; default ' + AGENT_DEFAULT_MAX_ROUNDS + ').',
      'Tools available:',
      ...tools.map((t) => `- ${t.name} (risk ${t.risk}): ${t.description}`),
    ].join('\n');
    const messages: GenerateMessage[] = [{ role: 'user', content: p.prompt }];
    const base = { system, api_key_id: p.api_key_id, model: p.model, output: { schema, name: 'agent' }, purpose: 'agents.generate', workspace_id: p.workspace_id };
    let outcome = await ask(ctx, { ...base, messages }, schema);
    let rounds = 1;
    if ('problems' in outcome) {
      rounds = 2;
      messages.push({ role: 'assistant', content: outcome.text || '(no valid JSON)' }, { role: 'user', content: `That answer is not a valid agent: ${outcome.problems.join('; ')}. Answer again with the whole corrected JSON object.` });
      outcome = await ask(ctx, { ...base, messages }, schema);
    }
    if ('problems' in outcome) throw AGENT_RUNTIME_ERR.GENERATION_INVALID(`The model's agent was still invalid after a repair turn: ${outcome.problems.join('; ')}`.slice(0, 2000), { problems: outcome.problems });
    const usage = outcome.result.usage;
    if (!p.save) return { saved: false, draft: outcome.draft, rounds, usage };
    const agent = await ctx.call('agents.create', { ...outcome.draft, ...(p.workspace_id ? { workspace_id: p.workspace_id } : {}), ...(p.api_key_id ? { api_key_id: p.api_key_id } : {}) });
    (ctx.meta as { $statusCode?: number }).$statusCode = 201;
    return { saved: true, agent, rounds, usage };
  },
};
