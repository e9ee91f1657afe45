import { NodeStepError } from '../../kernel/nodes/model-step.ts';

/**
 * The value types `transform` can make a resolved value (`types: {"a.b": "number"}`), as an n8n
 * Set node's typed fields do: a value that cannot be one fails the step naming the field.
 */
export const VALUE_TYPES = ['string', 'number', 'boolean', 'array', 'object'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

function convert(value: unknown, type: ValueType, field: string): unknown {
  if (value === null || value === undefined) return value;
  const fail = (): never => {
    throw new NodeStepError(`config.set.${field} should be a ${type}, got ${JSON.stringify(value).slice(0, 100)}.`, 'BAD_INPUT');
  };
  switch (type) {
    case 'string':
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'boolean' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : fail();
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 1 || value === '1') return true;
      if (value === 'false' || value === 0 || value === '0') return false;
      return fail();
    case 'array':
    case 'object': {
      let parsed = value;
      if (typeof value === 'string') {
        try {
          parsed = JSON.parse(value);
        } catch {
          return fail();
        }
      }
      return (type === 'array') === Array.isArray(parsed) && typeof parsed === 'object' ? parsed : fail();
    }
  }
}

/** `set` with the values at the typed paths (dot paths into it) converted. */
export function applyTypes(set: Record<string, unknown>, types: Record<string, ValueType>): Record<string, unknown> {
  const out = structuredClone(set);
  for (const [path, type] of Object.entries(types)) {
    const parts = path.split('.');
    let at: Record<string, unknown> | undefined = out;
    for (const part of parts.slice(0, -1)) at = at && typeof at[part] === 'object' && at[part] !== null && Object.hasOwn(at, part) ? (at[part] as Record<string, unknown>) : undefined;
    const last = parts.at(-1)!;
    if (at && Object.hasOwn(at, last)) at[last] = convert(at[last], type, path);
  }
  return out;
}
