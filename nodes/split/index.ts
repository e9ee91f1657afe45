import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, MAX_ITEMS, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { FIELD_PATH_SCHEMA, valueAt } from '../../kernel/nodes/item-path.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';

/**
 * Workflow node type `split`. `mode: field` (n8n's Split Out): one output item per element of
 * the list at `field` of each item (an item whose field is missing or not a list gives none),
 * optionally keeping the item's other fields; `mode: chunks`: the list cut into lists of `size`.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'split',
  version: 1,
  category: 'data',
  title: 'Split',
  description: "Turns each element of an item's list field into an item (field), or cuts a list into chunks (chunks).",
  config_schema: {
    type: 'object',
    properties: {
      items: ITEMS_SCHEMA,
      mode: { type: 'string', enum: ['field', 'chunks'], default: 'field', description: 'field: split a list field of each item; chunks: cut the list into lists of size.', examples: ['chunks'] },
      field: { ...FIELD_PATH_SCHEMA, description: "mode field: the list field of each item ('' when the items are themselves lists).", examples: ['lines'] },
      as: { type: ['string', 'null'], minLength: 1, maxLength: 100, default: null, description: 'mode field: the key the element gets in its output item when other fields are kept (null: the last part of field).', examples: ['line'] },
      include: { type: 'string', enum: ['none', 'other_fields'], default: 'none', description: "mode field: none gives the elements themselves; other_fields gives the item's other fields with the element under as.", examples: ['other_fields'] },
      size: { type: 'integer', minimum: 1, maximum: MAX_ITEMS, default: 10, description: 'mode chunks: the length of each chunk (the last may be shorter).', examples: [2] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    if: { properties: { mode: { const: 'chunks' } }, required: ['mode'] },
    else: { required: ['field'] },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: COMMON_STEP_FAILURES,
};

type Config = { items?: unknown; mode?: 'field' | 'chunks'; field?: string; as?: string | null; include?: 'none' | 'other_fields'; size?: number };

export default defineDataNodeType<Config>(nodeType, async ({ config, input }, budget) => {
  const items = itemsOf(config.items, input);
  const out: unknown[] = [];
  if (config.mode === 'chunks') {
    const size = config.size ?? 10;
    for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
    return { output: { items: out, count: out.length } };
  }
  const field = config.field ?? '';
  const as = config.as ?? (field.split(/[.[\]]/).filter(Boolean).at(-1) || 'value');
  for (const item of items) {
    const list = valueAt(item, field);
    if (!Array.isArray(list)) continue;
    for (const element of list) {
      if (config.include === 'other_fields' && item && typeof item === 'object' && !Array.isArray(item)) {
        const { [field]: _dropped, ...rest } = item as Record<string, unknown>;
        out.push({ ...rest, [as]: element });
      } else out.push(element);
      if (out.length > MAX_ITEMS) throw new NodeStepError(`Splitting gives more than ${MAX_ITEMS} items.`, 'BAD_INPUT');
      await budget.tick();
    }
  }
  return { output: { items: out, count: out.length } };
});
