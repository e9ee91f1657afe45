/**
 * The n8n import: `POST /api/v1/workflows/import` of a 200-node n8n export, saved (target p50 <
 * 500 ms), with the importer alone in process for comparison; and the validation of a 100-step
 * definition made by the importer (each, item modes, templates; target p50 < 10 ms).
 *
 *   node --import tsx bench/workflows-n8n-import.ts [--imports 40] [--validations 300]
 *
 * The export repeats a block of 10 nodes (Edit Fields with a reference, a paired reference and
 * a computing expression, IF, two branches, Merge, Filter, Sort, Limit, Date & Time, a per-item
 * Code) behind a Manual Trigger; each block reads the one before it.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startTestKernel, api } from '../test/helpers/kernel.ts';
import { workflowsRoot } from '../test/workflows-helpers.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';
import { importN8n } from '../plugins/workflows/import/n8n.ts';
import { nodeDeclarations } from '../kernel/nodes/declarations.ts';
import { checkDefinition } from '../plugins/workflows/definitions/validate.ts';
import type { NodeTypeDescription } from '../plugins/workflows/engine/node-types.ts';

const { values: args } = parseArgs({ options: { imports: { type: 'string', default: '40' }, validations: { type: 'string', default: '300' } } });
const IMPORTS = Number(args.imports);
const VALIDATIONS = Number(args.validations);

type N = { name: string; type: string; typeVersion: number; position: number[]; parameters: Record<string, unknown> };
const cond = (left: string, op: string, right: unknown) => ({ leftValue: left, rightValue: right, operator: { type: 'number', operation: op } });

/** An n8n export of about `size` nodes. */
function exportOf(size: number): Record<string, unknown> {
  const nodes: N[] = [{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }];
  const connections: Record<string, { main: { node: string; type: string; index: number }[][] }> = {};
  const link = (from: string, to: string, output = 0, input = 0) => {
    const main = (connections[from] ??= { main: [] }).main;
    while (main.length <= output) main.push([]);
    main[output].push({ node: to, type: 'main', index: input });
  };
  const add = (name: string, type: string, typeVersion: number, parameters: Record<string, unknown>) => nodes.push({ name, type: `n8n-nodes-base.${type}`, typeVersion, position: [nodes.length * 200, 0], parameters });
  let last = 'Start';
  for (let b = 0; nodes.length + 10 <= size; b++) {
    const n = (s: string) => `${s} ${b}`;
    add(n('Shape'), 'set', 3.4, { assignments: { assignments: [
      { name: 'n', value: `={{ $json.n ?? ${b} }}`, type: 'number' }, { name: 'from', value: "={{ $('Start').item.json.tag }}", type: 'string' }, { name: 'twice', value: '={{ ($json.n ?? 1) * 2 }}', type: 'number' },
    ] }, includeOtherFields: true });
    add(n('Big?'), 'if', 2.2, { conditions: { conditions: [cond('={{ $json.n }}', 'gt', 3)], combinator: 'and' } });
    add(n('Mark'), 'set', 3.4, { assignments: { assignments: [{ name: 'big', value: 'true', type: 'boolean' }] }, includeOtherFields: true });
    add(n('Pass'), 'noOp', 1, {});
    add(n('Join'), 'merge', 3, {});
    add(n('Keep'), 'filter', 2.2, { conditions: { conditions: [cond('={{ $json.n }}', 'gte', 0)], combinator: 'and' } });
    add(n('Order'), 'sort', 1, { sortFieldsUi: { sortField: [{ fieldName: 'n', order: 'descending' }] } });
    add(n('Top'), 'limit', 1, { maxItems: 10 });
    add(n('When'), 'dateTime', 2, { operation: 'addToDate', magnitude: '={{ $json.at ?? "2025-01-01T00:00:00Z" }}', duration: 1, timeUnit: 'days' });
    add(n('Code'), 'code', 2, { mode: 'runOnceForEachItem', jsCode: 'return { json: { ...$json, seen: true } };' });
    link(last, n('Shape'));
    link(n('Shape'), n('Big?'));
    link(n('Big?'), n('Mark'), 0);
    link(n('Big?'), n('Pass'), 1);
    link(n('Mark'), n('Join'), 0, 0);
    link(n('Pass'), n('Join'), 0, 1);
    for (const [a, c] of [['Join', 'Keep'], ['Keep', 'Order'], ['Order', 'Top'], ['Top', 'When'], ['When', 'Code']]) link(n(a), n(c));
    last = n('Code');
  }
  return { name: `bench ${size}`, nodes, connections, settings: { executionOrder: 'v1', timezone: 'UTC' } };
}

const big = exportOf(201);
const hundred = exportOf(101);
console.log(`export: ${(big.nodes as unknown[]).length} nodes, ${JSON.stringify(big).length} bytes`);

// in process: the importer alone, and the validation of a 100-step imported definition
const declarations = await nodeDeclarations(join(import.meta.dirname, '..', 'nodes'));
const byType = new Map(declarations.map((d) => [d.type, d as NodeTypeDescription]));
const importerTimes: number[] = [];
for (let i = 0; i < IMPORTS + 10; i++) {
  const t0 = performance.now();
  importN8n(big, undefined);
  if (i >= 10) importerTimes.push(performance.now() - t0);
}
const draft = importN8n(hundred, undefined);
const body = { name: draft.name, steps: draft.steps, variables: {} };
const first = checkDefinition(body, (t) => byType.get(t));
if (first.problems.length) throw new Error(`the 100-node definition does not validate: ${JSON.stringify(first.problems.slice(0, 3))}`);
const validationTimes: number[] = [];
for (let i = 0; i < VALIDATIONS + 30; i++) {
  const t0 = performance.now();
  checkDefinition(body, (t) => byType.get(t));
  if (i >= 30) validationTimes.push(performance.now() - t0);
}

// through the API, saved, on PostgreSQL
const db = `bench_n8n_import_${process.pid}`;
createDatabase(db);
const root = workflowsRoot();
let apiTimes: number[] = [];
try {
  const kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: databaseUrl(db), RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'fatal', BODY_LIMIT: '5mb' } });
  try {
    const once = async () => {
      const t0 = performance.now();
      const res = await api(kernel.apiUrl, '/api/v1/workflows/import', { method: 'POST', token: 'owner-token', json: { format: 'n8n', data: big } });
      const ms = performance.now() - t0;
      if (res.status !== 201) throw new Error(`import answered ${res.status}: ${res.text.slice(0, 500)}`);
      if (res.body.report.some((r: { status: string }) => r.status === 'unmapped')) throw new Error('a node was unmapped');
      return ms;
    };
    for (let i = 0; i < 5; i++) await once();
    apiTimes = [];
    for (let i = 0; i < IMPORTS; i++) apiTimes.push(await once());
  } finally {
    await kernel.close();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
  dropDatabase(db);
}

const p = (xs: number[], q: number) => round(percentile(xs, q), 2);
console.log(`importer alone (200 nodes, in process): p50 ${p(importerTimes, 50)} ms, p99 ${p(importerTimes, 99)} ms`);
console.log(`POST /import, saved (200 nodes, PostgreSQL): p50 ${p(apiTimes, 50)} ms, p99 ${p(apiTimes, 99)} ms (target p50 < 500 ms)`);
console.log(`validation of the 100-step imported definition: p50 ${p(validationTimes, 50)} ms, p99 ${p(validationTimes, 99)} ms (target p50 < 10 ms)`);
console.log(JSON.stringify({ import_api_p50_ms: p(apiTimes, 50), import_api_p99_ms: p(apiTimes, 99), importer_p50_ms: p(importerTimes, 50), validate_100_p50_ms: p(validationTimes, 50), validate_100_p99_ms: p(validationTimes, 99), steps_of_100_node_export: draft.steps.length }));
