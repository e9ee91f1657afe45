export const OPERATORS = ['truthy', 'falsy', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'in', 'exists', 'empty'];

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  // "5" from a query string equals 5 from a config
  if (typeof a !== typeof b && a !== null && b !== null) return String(a) === String(b);
  return a === b;
}

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
    case 'eq': return same(left, right);
    case 'ne': return !same(left, right);
    case 'gt': return compare(left, right) > 0;
    case 'gte': return compare(left, right) >= 0;
    case 'lt': return compare(left, right) < 0;
    case 'lte': return compare(left, right) <= 0;
    case 'contains':
      if (Array.isArray(left)) return left.some((item) => same(item, right));
      return typeof left === 'string' && left.includes(String(right));
    case 'in': return Array.isArray(right) && right.some((item) => same(item, left));
    case 'exists': return left !== undefined && left !== null;
    case 'empty': return left === undefined || left === null || left === '' || (Array.isArray(left) && left.length === 0) || (typeof left === 'object' && Object.keys(left as object).length === 0);
    default: throw new Error(`condition: unknown operator '${operator}'`);
  }
}
