import { createHash } from 'node:crypto';
import { kernelOf } from '../../kernel/context.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { FIELD_PATH_SCHEMA, parseFieldPath, valueAt } from '../../kernel/nodes/item-path.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';
import { canonicalJson } from './canonical.ts';
import { newKeys } from './seen-keys.ts';

/**
 * Workflow node type `dedupe`: drops items whose key (the `keys` fields, or the whole item but
 * the `exclude` fields)
 * came before. Scope `run`: within the list. Scope `binding`: also across the runs of the
 * binding (of the workflow, for runs without one), per step, for `forget_after_days`; the
 * keys let through are recorded in the database (migrations/), and a repeat of the same step of
 * the same run lets its own keys through again, so the effect is idempotent.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'dedupe',
  version: 1,
  category: 'data',
  title: 'Remove Duplicates',
  description: "Drops items whose key came before: within the list, or across the binding's runs.",
  config_schema: {
    type: 'object',
    properties: {
      items: ITEMS_SCHEMA,
      keys: { type: 'array', maxItems: 20, items: FIELD_PATH_SCHEMA, default: [], description: 'The fields that make an item\'s key, compared as JSON (none: the whole item, its object keys in any order).', examples: [['email']] },
      exclude: { type: 'array', maxItems: 50, items: FIELD_PATH_SCHEMA, default: [], description: 'Without keys: fields left out of the whole item before it is compared (a path drops that field and all below it).', examples: [['received_at', 'meta.trace_id']] },
      scope: { type: 'string', enum: ['run', 'binding'], default: 'run', description: "run: duplicates within this list; binding: also keys let through by this step in earlier runs of the binding.", examples: ['binding'] },
      forget_after_days: { type: 'number', exclusiveMinimum: 0, maximum: 3650, default: 30, description: 'scope binding: a key seen longer ago than this counts as new again.', examples: [7] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'idempotent',
  failures: { ...COMMON_STEP_FAILURES, NO_RUN_CONTEXT: 'scope binding outside a workflow run (no entity or run to scope the keys by)' },
};

/** A copy of the item without the fields at these paths (the item itself when there are none). */
function without(item: unknown, paths: string[]): unknown {
  if (paths.length === 0 || !item || typeof item !== 'object') return item;
  const copy = structuredClone(item) as Record<string, unknown>;
  for (const path of paths) {
    const parts = parseFieldPath(path);
    let at: unknown = copy;
    for (const part of parts.slice(0, -1)) at = at && typeof at === 'object' && Object.hasOwn(at, part) ? (at as Record<string, unknown>)[part] : undefined;
    if (at && typeof at === 'object' && parts.length) delete (at as Record<string, unknown>)[parts.at(-1)!];
  }
  return copy;
}

type Config = { items?: unknown; keys?: string[]; exclude?: string[]; scope?: 'run' | 'binding'; forget_after_days?: number };

export default defineDataNodeType<Config>(nodeType, async ({ config, input, context }, budget, ctx) => {
  const items = itemsOf(config.items, input);
  const keys = config.keys ?? [];
  const hashes: string[] = [];
  for (const item of items) {
    const key = keys.length ? keys.map((k) => valueAt(item, k) ?? null) : without(item, config.exclude ?? []);
    hashes.push(createHash('sha256').update(canonicalJson(key)).digest('hex'));
    await budget.tick();
  }
  const firstIndex = new Map<string, number>();
  hashes.forEach((h, i) => firstIndex.has(h) || firstIndex.set(h, i));
  let fresh: Set<string> | undefined;
  if (config.scope === 'binding') {
    if (!context.entity_id || !context.step_id) throw new NodeStepError('scope binding needs a workflow run to scope the keys by.', 'NO_RUN_CONTEXT');
    const owner = context.binding_id ? `binding:${context.binding_id}` : `workflow:${context.workflow_id ?? ''}`;
    fresh = await newKeys(kernelOf(ctx.broker).db, { entity_id: context.entity_id, scope: `${owner}/${context.step_id}`, run_id: context.run_id ?? '', step_id: context.step_id, forget_after_days: config.forget_after_days ?? 30 }, [...firstIndex.keys()]);
    budget.check();
  }
  const unique: unknown[] = [];
  const duplicates: unknown[] = [];
  items.forEach((item, i) => (firstIndex.get(hashes[i]) === i && (!fresh || fresh.has(hashes[i])) ? unique : duplicates).push(item));
  return { output: { items: unique, duplicates, count: unique.length, duplicate_count: duplicates.length } };
});
