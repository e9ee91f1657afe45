import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_SIDE_EFFECTS, type NodeTypeDeclaration } from '../kernel/nodes/contract.ts';
import { nodeDeclarations } from '../kernel/nodes/declarations.ts';
import { renderNodeDocs } from '../kernel/nodes/docs.ts';
import { declarationGaps } from './helpers/declaration-gaps.ts';

const ROOT = join(import.meta.dirname, '..');
const NODES = join(ROOT, 'nodes');

test('docs/nodes.md is what the declarations render (run `npm run docs:nodes` after changing one)', async (t) => {
  const declarations = await nodeDeclarations(NODES);
  t.true(declarations.length >= 20);
  t.is(readFileSync(join(ROOT, 'docs', 'nodes.md'), 'utf8'), renderNodeDocs(declarations));
});

test('every node package declares its type, with its side effect, and every config key a description, an example and (optional ones) a default its schema accepts', async (t) => {
  const packages = readdirSync(NODES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const declarations = await nodeDeclarations(NODES);
  // a package whose entry exports no declaration would be left out of the docs and of this check
  t.deepEqual(declarations.map((d) => d.type).sort(), [...packages].sort());
  for (const d of declarations) t.deepEqual(declarationGaps(d, NODE_SIDE_EFFECTS), [], d.type);
});

test('the completeness check names each kind of gap, and lets keys a mode or another key requires go without a default', (t) => {
  const base: Omit<NodeTypeDeclaration, 'config_schema'> = { type: 'x', version: 1, category: 'data', outputs: ['main'], uncertain_effect: false };
  const key = { type: 'string', default: '', description: 'k', examples: ['a'] };
  const { default: _none, ...noDefault } = key;
  t.deepEqual(declarationGaps({ ...base, side_effect: 'none', config_schema: { type: 'object', properties: { k: key } } }, NODE_SIDE_EFFECTS), []);
  t.deepEqual(declarationGaps({ ...base, config_schema: { type: 'object', properties: {} } }, NODE_SIDE_EFFECTS), ['side_effect is not one of none, idempotent, non_idempotent']);
  t.deepEqual(declarationGaps({ ...base, side_effect: 'none', config_schema: { type: 'object', properties: { k: { type: 'string' } } } }, NODE_SIDE_EFFECTS), [
    'k has no description',
    'k has no example',
    'k is optional without a default',
  ]);
  t.deepEqual(declarationGaps({ ...base, side_effect: 'none', config_schema: { type: 'object', properties: { k: { ...key, type: 'integer', default: null } } } }, NODE_SIDE_EFFECTS), [
    'k has a default its schema refuses: must be integer, got null',
  ]);
  const modes = {
    type: 'object',
    properties: { items: noDefault, to: noDefault, field: noDefault, k: noDefault },
    required: ['k'],
    if: { required: ['items'] },
    then: { required: ['to'] },
    allOf: [{ if: { properties: { k: { const: 'a' } } }, else: { required: ['field'] } }],
  };
  t.deepEqual(declarationGaps({ ...base, side_effect: 'none', config_schema: modes }, NODE_SIDE_EFFECTS), []);
  const withLoose = { ...modes, properties: { ...modes.properties, loose: noDefault } };
  t.deepEqual(declarationGaps({ ...base, side_effect: 'none', config_schema: withLoose }, NODE_SIDE_EFFECTS), ['loose is optional without a default']);
});
