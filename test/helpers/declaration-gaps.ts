import { validateJsonSchema } from '../../kernel/json-schema/validate.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

type Schema = Record<string, unknown>;

/**
 * Keys a config need not give a default: those an `if` tests for (giving them selects a mode,
 * so a default would always select it) and those a `then` / `else` requires (a mode's own
 * required keys), found in the schema's conditionals at any depth (allOf, anyOf, oneOf too).
 */
export function conditionalKeys(schema: unknown): Set<string> {
  const out = new Set<string>();
  const visit = (s: unknown): void => {
    if (!s || typeof s !== 'object') return;
    const node = s as Schema;
    for (const part of ['if', 'then', 'else'] as const) {
      const sub = node[part] as Schema | undefined;
      for (const k of (sub?.required as string[] | undefined) ?? []) out.add(k);
      visit(sub);
    }
    for (const list of ['allOf', 'anyOf', 'oneOf'] as const) {
      for (const sub of (node[list] as unknown[] | undefined) ?? []) {
        for (const k of ((sub as Schema).required as string[] | undefined) ?? []) out.add(k);
        visit(sub);
      }
    }
  };
  visit(schema);
  return out;
}

/**
 * What a node type's declaration lacks for the docs and the editor's form: a side-effect kind,
 * and per config key a description, an example, and (unless it is required, by the schema or
 * by a mode) a default that its own schema accepts (the editor's form starts from it).
 */
export function declarationGaps(d: NodeTypeDeclaration, sideEffects: readonly string[]): string[] {
  const gaps: string[] = [];
  if (!d.side_effect || !sideEffects.includes(d.side_effect)) gaps.push(`side_effect is not one of ${sideEffects.join(', ')}`);
  const schema = d.config_schema as Schema;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const conditional = conditionalKeys(schema);
  for (const [key, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (typeof s.description !== 'string' || !s.description) gaps.push(`${key} has no description`);
    if (!Array.isArray(s.examples) || s.examples.length === 0) gaps.push(`${key} has no example`);
    if (!required.has(key) && !conditional.has(key) && !('default' in s)) gaps.push(`${key} is optional without a default`);
    if ('default' in s) {
      const problem = validateJsonSchema(s, s.default, '', { templates: false })[0];
      if (problem) gaps.push(`${key} has a default its schema refuses: ${problem.message}`);
    }
  }
  return gaps;
}
