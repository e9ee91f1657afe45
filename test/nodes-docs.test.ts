import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeDeclarations } from '../kernel/nodes/declarations.ts';
import { renderNodeDocs } from '../kernel/nodes/docs.ts';

const ROOT = join(import.meta.dirname, '..');

test('docs/nodes.md is what the declarations render (run `npm run docs:nodes` after changing one)', async (t) => {
  const declarations = await nodeDeclarations(join(ROOT, 'nodes'));
  t.true(declarations.length >= 20);
  t.is(readFileSync(join(ROOT, 'docs', 'nodes.md'), 'utf8'), renderNodeDocs(declarations));
});

type Conditional = { then?: { required?: string[] }; else?: { required?: string[] } };

test('every config key of the logic and data node types has a description and an example, and every optional one a default', async (t) => {
  const own = new Set(['filter', 'aggregate', 'split', 'limit', 'sort', 'dedupe', 'datetime', 'loop', 'extractfromfile']);
  const declarations = (await nodeDeclarations(join(ROOT, 'nodes'))).filter((d) => own.has(d.type));
  t.is(declarations.length, own.size);
  for (const d of declarations) {
    t.truthy(d.side_effect, `${d.type} declares its side effect`);
    const schema = d.config_schema as { properties: Record<string, Record<string, unknown>>; required?: string[]; allOf?: Conditional[] } & Conditional;
    // a key required by one op (`if op is round then round_to`) has no default to fall back on
    const requiredByOp = new Set([...(schema.allOf ?? []), schema].flatMap((c) => [...(c.then?.required ?? []), ...(c.else?.required ?? [])]));
    for (const [key, s] of Object.entries(schema.properties)) {
      t.truthy(s.description, `${d.type}.${key} has a description`);
      t.true(Array.isArray(s.examples) && s.examples.length > 0, `${d.type}.${key} has an example`);
      if (!schema.required?.includes(key) && !requiredByOp.has(key) && !['items', 'datetime', 'to', 'to_zone', 'format', 'amount', 'branches', 'field', 'as', 'path', 'text', 'content'].includes(key)) t.true('default' in s, `${d.type}.${key} has a default`);
    }
  }
});
