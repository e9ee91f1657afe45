/**
 * The one declaration of an integer read from a query string (or a header), as a
 * fastest-validator rule. Every numeric query value of every route is built with it, so each
 * has both bounds: a value out of range, not an integer or not a number (`1e99`, `-1`, `2.5`,
 * `abc`, `1e400`) is a 422 naming the parameter, never a value handed to SQL that PostgreSQL
 * then refuses (a 500). A test of the live OpenAPI document holds every route to it.
 */

/** The largest value of a PostgreSQL `integer` (int4) column. */
export const PG_INTEGER_MAX = 2_147_483_647;

export interface QueryIntegerRule {
  type: 'number';
  integer: true;
  convert: true;
  min: number;
  max: number;
  default?: number;
  optional?: true;
  description?: string;
}

/** `{ min, max }` and optionally a default (else the parameter is optional) and a description. */
export function queryInteger(bounds: { min: number; max: number; default?: number; description?: string }): QueryIntegerRule {
  if (!Number.isSafeInteger(bounds.min) || !Number.isSafeInteger(bounds.max) || bounds.min > bounds.max) {
    throw new Error(`queryInteger: bounds must be safe integers with min <= max, got ${bounds.min}..${bounds.max}`);
  }
  const rule: QueryIntegerRule = { type: 'number', integer: true, convert: true, min: bounds.min, max: bounds.max };
  if (bounds.default === undefined) rule.optional = true;
  else rule.default = bounds.default;
  if (bounds.description) rule.description = bounds.description;
  return rule;
}

