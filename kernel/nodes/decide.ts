import { sameValue } from './values.ts';

export const OPERATORS = ['truthy', 'falsy', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'in', 'exists', 'empty'];


function compare(a: unknown, b: unknown): number {
  const na = Number(a);
  const nb = Number(b);
  if (!Number.isNaN(na) && !Number.isNaN(nb) && a !== '' && b !== '' && a !== null && b !== null) return na - nb;
  return String(a).localeCompare(String(b));
}

/** Evaluates a condition without running any code: a fixed set of operators on resolved values. */
export function decide(left: unknown, operator: string | undefined, right: unknown): boolean {
  switch (operator ?? 'truthy') {
    case 'truthy': return Boolean(left) && !(Array.isArray(left) && left.length === 0);
    case 'falsy': return !left || (Array.isArray(left) && left.length === 0);
    case 'eq': return sameValue(left, right);
    case 'ne': return !sameValue(left, right);
    case 'gt': return compare(left, right) > 0;
    case 'gte': return compare(left, right) >= 0;
    case 'lt': return compare(left, right) < 0;
    case 'lte': return compare(left, right) <= 0;
    case 'contains':
      if (Array.isArray(left)) return left.some((item) => sameValue(item, right));
      return typeof left === 'string' && left.includes(String(right));
    case 'in': return Array.isArray(right) && right.some((item) => sameValue(item, left));
    case 'exists': return left !== undefined && left !== null;
    case 'empty': return left === undefined || left === null || left === '' || (Array.isArray(left) && left.length === 0) || (typeof left === 'object' && Object.keys(left as object).length === 0);
    default: throw new Error(`condition: unknown operator '${operator}'`);
  }
}
