import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';

/** Most iterations one loop step runs (items / batch_size, rounded up). */
export const MAX_LOOP_ITERATIONS = 1000;

/**
 * Workflow node type `loop` (n8n's Loop Over Items): its body branch runs once per element of
 * `items` (or per batch of `batch_size`), then its done branch once. The body's last steps lead
 * back to the loop step: that is the one cycle a definition may have. The engine drives the
 * iterations (plugins/workflows/engine/loops.ts): each commits a receipt `<loop>@<i>`, a resumed
 * run continues at the first iteration without one. During iteration i the body reads
 * `{{<loop>.output.item}}` (the element; with batches `items`), `index`, `iteration`, `total`;
 * after it, the loop step's output has `results` (per iteration, what the steps leading back
 * gave) and `collected` (those results as one list, each iteration's list flattened in).
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };
export const nodeType: NodeTypeDeclaration = {
  type: 'loop',
  version: 1,
  category: 'logic',
  title: 'Loop Over Items',
  description: `Runs the body branch once per element (or batch) of a list, at most ${MAX_LOOP_ITERATIONS} times, then the done branch.`,
  config_schema: {
    type: 'object',
    properties: {
      items: { type: 'array', description: 'The list to go over, usually a template such as "{{fetch.output.body.items}}".', examples: ['{{fetch.output.body.items}}'] },
      batch_size: { type: 'integer', minimum: 1, maximum: 1000, default: 1, description: 'Elements per iteration: the body reads them as items (item is the first).', examples: [2] },
      branches: {
        type: 'object',
        properties: { body: target, done: target },
        required: ['body'],
        additionalProperties: false,
        description: 'body: the step(s) each iteration starts at (the body must lead back to this step); done: the step(s) run after the last iteration. Each also in next.',
        examples: [{ body: 'fetch_one', done: 'report' }],
      },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['items', 'branches'],
    additionalProperties: false,
  },
  outputs: ['body', 'done'],
  branch_targets: ['branches.body', 'branches.done'],
  loop: true,
  uncertain_effect: false,
  side_effect: 'none',
  failures: { ...COMMON_STEP_FAILURES, LOOP_TOO_LONG: `the list needs more than ${MAX_LOOP_ITERATIONS} iterations at this batch_size` },
};

type Config = { items: unknown; batch_size?: number; branches: { body: string | string[]; done?: string | string[] } };

export default defineDataNodeType<Config>(nodeType, ({ config }) => {
  if (!Array.isArray(config.items)) throw new NodeStepError(`config.items must be an array, got ${config.items === null ? 'null' : typeof config.items}.`, 'BAD_INPUT');
  const batchSize = config.batch_size ?? 1;
  const iterations = Math.ceil(config.items.length / batchSize);
  if (iterations > MAX_LOOP_ITERATIONS) throw new NodeStepError(`config.items has ${config.items.length} elements: ${iterations} iterations of ${batchSize}, over the ${MAX_LOOP_ITERATIONS} a loop runs.`, 'LOOP_TOO_LONG');
  const output = { items: config.items, batch_size: batchSize, iterations };
  if (iterations === 0) return { output: { ...output, results: [], collected: [] }, next: [config.branches.done ?? []].flat() };
  return { output, next: [config.branches.body].flat() };
});
