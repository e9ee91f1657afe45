import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { unsupportedKeywords } from '../../kernel/json-schema/validate.ts';
import { defineModelNodeType, inputText, modelTurn, MODEL_KEYS_SCHEMA, NodeStepError, TIMEOUT_SCHEMA } from '../../kernel/nodes/model-step.ts';

/**
 * Workflow node type `llm`: one model call through the models package (the entity's key or
 * `api_key_id`), answering text, or with `output: "json"` one JSON value checked against
 * `schema`. Output `{text | json, usage, model}`. Usage is recorded under purpose `node.llm`.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'llm',
  version: 1,
  category: 'ai',
  title: 'LLM',
  description: 'Asks a model one prompt; outputs {text} or, with output json, {json} checked against a JSON Schema; plus usage and model.',
  config_schema: {
    type: 'object',
    properties: {
      prompt: { type: 'string', minLength: 1, maxLength: 200_000, description: 'What the model is asked (templates allowed).', examples: ['Summarise this ticket: {{trigger.body.text}}'] },
      system: { type: 'string', maxLength: 100_000, default: '', description: 'System prompt (empty: none).', examples: ['You are a terse support analyst.'] },
      ...MODEL_KEYS_SCHEMA,
      output: { type: 'string', enum: ['text', 'json'], default: 'text', description: 'text: the answer as text ({text}); json: one JSON value matching schema ({json}).', examples: ['json'] },
      schema: { type: 'object', description: 'JSON Schema the answer must match (required with output json; keywords of kernel/json-schema/validate.ts).', examples: [{ type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] }] },
      max_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 200_000, default: null, description: "Longest answer in tokens (null: the provider's).", examples: [500] },
      temperature: { type: ['number', 'null'], minimum: 0, maximum: 2, default: null, description: "Sampling temperature (null: the provider's).", examples: [0.2] },
      timeout: TIMEOUT_SCHEMA,
    },
    required: ['prompt'],
    additionalProperties: false,
    if: { properties: { output: { const: 'json' } }, required: ['output'] },
    then: { required: ['schema'] },
  },
  outputs: ['main'],
  uncertain_effect: false,
  // a model call changes nothing outside the run (its usage is metered, as any repeat's would be)
  side_effect: 'none',
};

interface LlmConfig {
  prompt: string;
  system?: string;
  model?: string | null;
  api_key_id?: string | null;
  output?: 'text' | 'json';
  schema?: Record<string, unknown>;
  max_tokens?: number | null;
  temperature?: number | null;
  timeout?: number | null;
}

export default defineModelNodeType<LlmConfig>(nodeType, async (ctx, { config, context }, signal) => {
  const json = config.output === 'json';
  if (json) {
    if (!config.schema || typeof config.schema !== 'object' || Array.isArray(config.schema)) throw new NodeStepError('config.schema must be a JSON Schema object when output is json.', 'INVALID_SCHEMA');
    const unsupported = unsupportedKeywords(config.schema);
    if (unsupported.length) throw new NodeStepError(`config.schema uses keywords the answer cannot be checked against: ${unsupported.slice(0, 5).join(', ')}.`, 'INVALID_SCHEMA');
  }
  const prompt = inputText(config.prompt);
  if (!prompt.trim()) throw new NodeStepError('config.prompt is empty once its templates are resolved.', 'EMPTY_PROMPT');
  const turn = await modelTurn(
    ctx,
    context,
    {
      messages: [{ role: 'user', content: prompt }],
      system: config.system || undefined,
      model: config.model ?? undefined,
      api_key_id: config.api_key_id ?? undefined,
      max_tokens: config.max_tokens ?? undefined,
      temperature: config.temperature ?? undefined,
      ...(json ? { output: { schema: config.schema!, name: 'answer' } } : {}),
    },
    { purpose: 'node.llm', timeoutSeconds: config.timeout, signal },
  );
  const answer = json ? { json: turn.object ?? null } : { text: turn.text };
  return { output: { ...answer, usage: turn.usage, model: turn.model } };
});
