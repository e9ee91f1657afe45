import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { defineModelNodeType, inputText, modelTurn, MODEL_KEYS_SCHEMA, NodeStepError, TIMEOUT_SCHEMA } from '../../kernel/nodes/model-step.ts';

/**
 * Workflow node type `classifier`: asks the model (structured output) which of `categories`
 * the `input` belongs to, `other` when none fits, and follows that category's `next` (`other`
 * follows config `other`). Output `{category, confidence, usage, model}`.
 */
const OTHER = 'other';
const target = {
  oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }],
  description: 'Step id(s) this branch leads to; each must also be in the step\'s next.',
};

const nodeType: NodeTypeDeclaration = {
  type: 'classifier',
  version: 1,
  category: 'ai',
  title: 'Classifier',
  description: 'Asks a model which category a text belongs to (or other) and follows that category\'s branch; outputs {category, confidence}.',
  config_schema: {
    type: 'object',
    properties: {
      input: { type: 'string', minLength: 1, maxLength: 200_000, description: 'The text to classify (templates allowed; a non-text value is given as its JSON).', examples: ['{{trigger.body.message}}'] },
      categories: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        description: 'The categories, each a branch; names are unique and not "other" (the branch taken when none fits).',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100, pattern: '^(?!other$)[^\\n\\r]+$', description: 'The category name the model answers.', examples: ['billing'] },
            description: { type: 'string', maxLength: 2000, description: 'What belongs in it, for the model.', examples: ['Invoices, refunds, payment failures'] },
            next: target,
          },
          required: ['name'],
          additionalProperties: false,
        },
        examples: [[{ name: 'billing', description: 'Invoices and payments', next: 'bill' }, { name: 'bug', next: 'triage' }]],
      },
      other: { oneOf: [...target.oneOf, { type: 'null' }], default: null, description: 'Step id(s) followed when the model answers other (null: none; with no next anywhere the classifier only labels and follows all of its next).', examples: ['fallback'] },
      instructions: { type: 'string', maxLength: 20_000, default: '', description: 'Extra guidance for the model (empty: none).', examples: ['A message about a failed charge is billing, not bug.'] },
      ...MODEL_KEYS_SCHEMA,
      timeout: TIMEOUT_SCHEMA,
    },
    required: ['input', 'categories'],
    additionalProperties: false,
  },
  outputs: ['category', OTHER],
  branch_targets: ['categories.*.next', OTHER],
  uncertain_effect: false,
  // a model call changes nothing outside the run (its usage is metered, as any repeat's would be)
  side_effect: 'none',
};

type Target = string | string[];
interface ClassifierConfig {
  input: unknown;
  categories: { name: string; description?: string; next?: Target }[];
  other?: Target | null;
  instructions?: string;
  model?: string | null;
  api_key_id?: string | null;
  timeout?: number | null;
}

function systemPrompt(config: ClassifierConfig): string {
  const lines = config.categories.map((c) => `- ${JSON.stringify(c.name)}${c.description ? `: ${c.description}` : ''}`);
  return [
    'You classify the text the user sends into exactly one category.',
    `Categories:\n${lines.join('\n')}\n- "${OTHER}": none of the above fits.`,
    'Answer with the category name and your confidence between 0 and 1.',
    config.instructions?.trim() ? `Instructions:\n${config.instructions.trim()}` : '',
  ].filter(Boolean).join('\n\n');
}

/** The branches to follow; a classifier naming no branch at all follows all of its next (it only labels). */
function branchOf(config: ClassifierConfig, category: string): string[] | undefined {
  const branching = (config.other !== undefined && config.other !== null) || config.categories.some((c) => c.next !== undefined);
  if (!branching) return undefined;
  const chosen = category === OTHER ? (config.other ?? undefined) : config.categories.find((c) => c.name === category)?.next;
  return chosen === undefined ? [] : [chosen].flat();
}

export default defineModelNodeType<ClassifierConfig>(nodeType, async (ctx, { config, context }, signal) => {
  const names = config.categories.map((c) => c.name);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) throw new NodeStepError(`config.categories names '${repeated}' more than once.`, 'INVALID_CONFIG');
  const text = inputText(config.input);
  if (!text.trim()) throw new NodeStepError('config.input is empty once its templates are resolved.', 'EMPTY_INPUT');
  const schema = {
    type: 'object',
    properties: { category: { type: 'string', enum: [...names, OTHER] }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
    required: ['category', 'confidence'],
    additionalProperties: false,
  };
  const turn = await modelTurn(
    ctx,
    context,
    { messages: [{ role: 'user', content: text }], system: systemPrompt(config), model: config.model ?? undefined, api_key_id: config.api_key_id ?? undefined, output: { schema, name: 'classification' } },
    { purpose: 'node.classifier', timeoutSeconds: config.timeout, signal },
  );
  const answer = turn.object as { category: string; confidence: number };
  const next = branchOf(config, answer.category);
  return { output: { category: answer.category, confidence: answer.confidence, usage: turn.usage, model: turn.model }, ...(next ? { next } : {}) };
});
