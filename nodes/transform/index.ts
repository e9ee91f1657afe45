import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { applyTypes, VALUE_TYPES, type ValueType } from './types.ts';

/**
 * Workflow node type `transform`: config `set` is an object whose values are templates; the
 * engine resolves them against committed data, and the resolved object is the output, laid
 * over `base` when given (an n8n Set node keeping the item's other fields); `types` converts
 * values at dot paths of `set` (an n8n Set node's typed fields, types.ts).
 */
const nodeType: NodeTypeDeclaration = {
  type: 'transform',
  version: 1,
  category: 'data',
  title: 'Transform',
  description: 'Output = config.set with every template resolved ({{stepId.output.path}}, {{varName}}, {{trigger}}).',
  config_schema: {
    type: 'object',
    properties: {
      set: { type: 'object', description: 'The output: each value a template or a literal.', examples: [{ total: '{{order.output.total}}' }] },
      base: { type: 'object', default: {}, description: 'An object set is laid over (its keys kept unless set names them), usually "{{item}}" in a step with each (empty: set alone).', examples: ['{{item}}'] },
      omit: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 500 }, default: [], description: 'Dot paths removed from a copy of base before set is laid over it (an n8n Set node keeping all other fields but these).', examples: [['password', 'meta.trace']] },
      types: {
        type: 'object', additionalProperties: { type: 'string', enum: [...VALUE_TYPES] }, default: {},
        description: 'Converts the resolved value at a dot path of set to a type (a value that cannot be one fails the step with BAD_INPUT).', examples: [{ id: 'string', 'totals.net': 'number' }],
      },
    },
    required: ['set'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
};

/** A copy of base without the values at these dot paths (a path that is not there is no change). */
function omitted(base: unknown, paths: string[]): unknown {
  if (!base || typeof base !== 'object' || Array.isArray(base)) return base;
  const copy = structuredClone(base) as Record<string, unknown>;
  for (const path of paths) {
    const parts = path.split('.');
    let at: unknown = copy;
    for (const part of parts.slice(0, -1)) at = at && typeof at === 'object' && Object.hasOwn(at, part) ? (at as Record<string, unknown>)[part] : undefined;
    if (at && typeof at === 'object') delete (at as Record<string, unknown>)[parts.at(-1)!];
  }
  return copy;
}

export default defineNodeType(nodeType, (params: { config: { set: Record<string, unknown>; base?: unknown; omit?: string[]; types?: Record<string, ValueType> } }) => {
  const { types, omit } = params.config;
  const base = omit?.length ? omitted(params.config.base, omit) : params.config.base;
  const set = types ? applyTypes(params.config.set, types) : params.config.set;
  if (base && typeof base === 'object' && !Array.isArray(base)) return { output: { ...base, ...set } };
  return { output: set };
});
