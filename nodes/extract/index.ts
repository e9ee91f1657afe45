import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { unsupportedKeywords } from '../../kernel/json-schema/validate.ts';
import type { GenerateMessage, GenerateParams, GenerateResult } from '../../kernel/models-generate-contract.ts';
import { defineModelNodeType, inputText, modelTurn, MODEL_KEYS_SCHEMA, NodeStepError, TIMEOUT_SCHEMA } from '../../kernel/nodes/model-step.ts';

/**
 * Workflow node type `extract`: structured data from `input`, asked of the model with
 * structured output against `schema` and checked against it (by the models package). An answer
 * that does not match gets ONE repair turn telling the model the problems; a second bad answer
 * fails the step with code EXTRACT_INVALID naming them. Output `{data, repaired, usage, model}`
 * (usage of the answering turn; models records every turn's usage against the run).
 */
const nodeType: NodeTypeDeclaration = {
  type: 'extract',
  version: 1,
  category: 'ai',
  title: 'Extract',
  description: 'Extracts structured data matching a JSON Schema from a text; one repair turn when the answer does not match; outputs {data, repaired, usage, model}.',
  config_schema: {
    type: 'object',
    properties: {
      input: { type: 'string', minLength: 1, maxLength: 200_000, description: 'The text to extract from (templates allowed; a non-text value is given as its JSON).', examples: ['{{fetch.output.body}}'] },
      schema: {
        type: 'object',
        description: 'JSON Schema of the data (keywords of kernel/json-schema/validate.ts); the answer is checked against it.',
        examples: [{ type: 'object', properties: { name: { type: 'string' }, amount: { type: 'number' } }, required: ['name', 'amount'], additionalProperties: false }],
      },
      instructions: { type: 'string', maxLength: 20_000, default: '', description: 'Extra guidance for the model (empty: none).', examples: ['Amounts are in euros; dates as YYYY-MM-DD.'] },
      ...MODEL_KEYS_SCHEMA,
      timeout: TIMEOUT_SCHEMA,
    },
    required: ['input', 'schema'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  // a model call changes nothing outside the run (its usage is metered, as any repeat's would be)
  side_effect: 'none',
};

interface ExtractConfig {
  input: unknown;
  schema: Record<string, unknown>;
  instructions?: string;
  model?: string | null;
  api_key_id?: string | null;
  timeout?: number | null;
}

type Problem = { path: string; message: string };

function listed(problems: Problem[]): string {
  return problems.slice(0, 10).map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ');
}

function isOutputInvalid(err: unknown): err is NodeStepError {
  return err instanceof NodeStepError && err.type === 'MODELS_ERR_OUTPUT_INVALID';
}

export default defineModelNodeType<ExtractConfig>(nodeType, async (ctx, { config, context }, signal) => {
  if (!config.schema || typeof config.schema !== 'object' || Array.isArray(config.schema)) throw new NodeStepError('config.schema must be a JSON Schema object.', 'INVALID_SCHEMA');
  const unsupported = unsupportedKeywords(config.schema);
  if (unsupported.length) throw new NodeStepError(`config.schema uses keywords the answer cannot be checked against: ${unsupported.slice(0, 5).join(', ')}.`, 'INVALID_SCHEMA');
  const text = inputText(config.input);
  if (!text.trim()) throw new NodeStepError('config.input is empty once its templates are resolved.', 'EMPTY_INPUT');
  const system = [
    'Extract the data the schema describes from the text the user sends. Use only what the text says; where the schema allows it, leave out what the text does not give.',
    config.instructions?.trim() ? `Instructions:\n${config.instructions.trim()}` : '',
  ].filter(Boolean).join('\n\n');
  const base: GenerateParams = { messages: [{ role: 'user', content: text }], system, model: config.model ?? undefined, api_key_id: config.api_key_id ?? undefined, output: { schema: config.schema, name: 'extraction' } };
  const opts = { purpose: 'node.extract', timeoutSeconds: config.timeout, signal };
  // usage: the answering turn's (every turn, the rejected one included, is recorded by models)
  const done = (turn: GenerateResult, repaired: boolean) => ({ output: { data: turn.object ?? null, repaired, usage: turn.usage, model: turn.model } });

  let first: NodeStepError;
  try {
    return done(await modelTurn(ctx, context, base, opts), false);
  } catch (err) {
    if (!isOutputInvalid(err)) throw err;
    first = err;
  }
  const problems = (first.data.problems as Problem[] | undefined) ?? [];
  const repair: GenerateMessage[] = [
    ...base.messages,
    { role: 'assistant', content: String(first.data.text ?? '') },
    { role: 'user', content: `Your answer does not match the schema: ${listed(problems)}. Answer again with only the corrected JSON value.` },
  ];
  try {
    const turn = await modelTurn(ctx, context, { ...base, messages: repair }, opts);
    return done(turn, true);
  } catch (err) {
    if (!isOutputInvalid(err)) throw err;
    const again = (err.data.problems as Problem[] | undefined) ?? [];
    throw new NodeStepError(`The extracted data does not match the schema after one repair turn: ${listed(again)}.`, 'EXTRACT_INVALID', { problems: again });
  }
});
