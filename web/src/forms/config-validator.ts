import { Validator, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { problemsOf, type ConfigProblem } from './problem-messages';
import { tolerant } from './template-schema';

/** JSON Schema drafts by `$schema` URI; a schema that names none is read as 2020-12 (what the node types write). */
const DRAFTS: [RegExp, SchemaDraft][] = [[/draft-04/, '4'], [/draft-07|draft-06/, '7'], [/2019-09/, '2019-09'], [/2020-12/, '2020-12']];

export function draftOf(schema: unknown): SchemaDraft {
  const uri = schema && typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  if (typeof uri === 'string') for (const [re, draft] of DRAFTS) if (re.test(uri)) return draft;
  return '2020-12';
}

const compiled = new WeakMap<object, { validator: Validator; schema: unknown }>();

function compile(schema: object): { validator: Validator; schema: unknown } {
  let entry = compiled.get(schema);
  if (!entry) {
    const wrapped = tolerant(schema);
    entry = { validator: new Validator(wrapped as Schema, draftOf(schema), false), schema: wrapped };
    compiled.set(schema, entry);
  }
  return entry;
}

/**
 * Every problem of a step config against its node type's schema, as the server's save
 * validation finds them (templates accepted anywhere, `format` not checked). Interpreted by
 * @cfworker/json-schema: nothing is compiled with `new Function`, so the CSP holds.
 */
export function configProblems(schema: unknown, config: unknown): ConfigProblem[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [{ pointer: '', message: 'is not allowed' }];
  if (typeof schema !== 'object' || schema === null) return [];
  const { validator, schema: wrapped } = compile(schema);
  const result = validator.validate(config);
  if (result.valid) return [];
  const problems = problemsOf(result.errors, wrapped, config);
  return problems.length ? problems : [{ pointer: '', message: 'does not match the schema' }];
}
