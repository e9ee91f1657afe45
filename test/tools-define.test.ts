import test from 'ava';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { defineTool } from '../kernel/tools/define.ts';
import { declarationProblems } from '../kernel/tools/declaration.ts';
import { argumentProblems } from '../kernel/tools/arguments.ts';
import { listTools, scanTools } from '../kernel/tools/registry.ts';
import { toProblem } from '../kernel/errors/problem.ts';
import { eventually } from './helpers/eventually.ts';
import type { ToolDeclaration } from '../kernel/tools-contract.ts';

const ROOT = join(import.meta.dirname, '..');
const DEFINE = pathToFileURL(join(ROOT, 'kernel', 'tools', 'define.ts')).href;
const ERRORS = pathToFileURL(join(ROOT, 'kernel', 'tools', 'errors.ts')).href;

const ECHO: ToolDeclaration = {
  name: 'echo',
  description: 'Repeats its text.',
  risk: 'low',
  side_effect: 'none',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, maxLength: 20 }, times: { type: 'integer', minimum: 1, maximum: 3 }, fail: { type: 'boolean' } },
    required: ['text'],
    additionalProperties: false,
  },
};
const CONTEXT = { entity_id: 'e-1', user_id: 'u-owner', workspace_id: null, agent_id: null, run_id: null, step_id: null, invocation_id: 'call-1' };
const OWNER = { id: 'u-owner', entity_id: 'e-1', role: 'owner' };

let kernel: TestKernel;
let db: TestDatabase;
let root: string;
/** packages loaded explicitly with loader.load (outside the watched root) */
let scratch: string;

/** A tool package written at test time, importing the kernel's defineTool by absolute URL. */
function writeTool(name: string, declaration: unknown, into = scratch, body = 'async (args, inv) => (args.fail ? (() => { throw toolError("asked to fail") })() : { echoed: String(args.text).repeat(args.times ?? 1), entity: inv.context.entity_id, user: inv.ctx.meta.user?.id ?? null })'): string {
  const dir = join(into, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', capability: { kind: 'tool', roles: ['api', 'work'] } }));
  writeFileSync(join(dir, 'index.js'), `import { defineTool } from ${JSON.stringify(DEFINE)};\nimport { toolError } from ${JSON.stringify(ERRORS)};\nexport default defineTool(${JSON.stringify(declaration)}, ${body});\n`);
  return dir;
}

test.before(async () => {
  root = mkdtempSync(join(tmpdir(), 'wao-tools-'));
  scratch = mkdtempSync(join(tmpdir(), 'wao-tools-scratch-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  db = await createTestDatabase('tools_define');
  kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', HOT_RELOAD: 'true' } });
});
test.after.always(async () => {
  await kernel?.close();
  await db?.drop();
  if (root) rmSync(root, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('declarationProblems names each problem of a bad declaration', (t) => {
  t.deepEqual(declarationProblems(ECHO), []);
  t.deepEqual(declarationProblems(null), ['the declaration (metadata.tool) is not an object']);
  const problems = declarationProblems({ ...ECHO, name: 'Echo!', risk: 'extreme', side_effect: 'some', category: 'Not OK', extra: 1, description: '' });
  for (const want of [/name must match/, /risk must be one of/, /side_effect must be one of/, /category must match/, /'extra' is not a declaration key/, /description must be/]) {
    t.true(problems.some((p) => want.test(p)), `${want} in ${problems.join(' | ')}`);
  }
  t.regex(declarationProblems({ ...ECHO, parameters: { type: 'string' } }).join(), /type 'object'/);
  t.regex(declarationProblems({ ...ECHO, parameters: { type: 'object', properties: { a: { type: 'string', format2: 'x' } } } }).join(), /keywords the validator does not check: #\/properties\/a\/format2/);
  t.regex(declarationProblems({ ...ECHO, parameters: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } }).join(), /pattern is not a valid regular expression/);
  t.regex(declarationProblems({ ...ECHO, parameters: { type: 'object', properties: { a: { type: 'text' } } } }).join(), /type must name JSON types/);
  t.regex(declarationProblems({ ...ECHO, parameters: { type: 'object', required: 'a' } }).join(), /required must be a list/);
  t.regex(declarationProblems({ ...ECHO, parameters: { type: 'object', properties: { a: { type: 'string', maxLength: '3' } } } }).join(), /maxLength must be a number/);
});

test('defineTool refuses a bad declaration at once, naming the problem', (t) => {
  const err = t.throws(() => defineTool({ ...ECHO, name: '9lives' }, () => null));
  t.regex(err!.message, /tool '9lives' has an invalid declaration: name must match/);
  const schema = defineTool(ECHO, () => null);
  t.is(schema.name, 'tool.echo');
  t.deepEqual((schema.metadata as { tool: unknown }).tool, ECHO);
});

test('argumentProblems lists every problem; a whole template is not a value here', (t) => {
  t.deepEqual(argumentProblems(ECHO, { text: 'hi', times: 2 }), []);
  const problems = argumentProblems(ECHO, { times: 9, other: true });
  t.deepEqual(
    problems.map((p) => [p.field, p.type]),
    [['text', 'required'], ['times', 'schema'], ['other', 'unknownField']],
  );
  t.is(problems[2].message, 'other is not a parameter of this tool');
  t.deepEqual(argumentProblems(ECHO, { text: 'hi', times: '{{n}}' }).map((p) => p.field), ['times']);
});

test('a tool package with a bad declaration fails to load with the reason', async (t) => {
  const dir = writeTool('tool-bad', { ...ECHO, name: 'bad', risk: 'extreme' });
  const record = await kernel.loader.load(dir);
  t.is(record.state, 'failed');
  t.is(record.error?.code, 'KERNEL_ERR_ENTRY');
  t.regex(record.error?.message ?? '', /tool 'bad' has an invalid declaration: risk must be one of low, medium, high/);
  t.false(listTools(kernel.broker).some((d) => d.name === 'bad'));
});

test.serial('a hot-loaded tool appears in listTools at once and is gone when unloaded', async (t) => {
  t.false(listTools(kernel.broker).some((d) => d.name === 'echo'));
  const dir = writeTool('tool-echo', ECHO);
  t.is((await kernel.loader.load(dir)).state, 'loaded');
  t.deepEqual(listTools(kernel.broker).find((d) => d.name === 'echo'), ECHO);
  const entry = scanTools(kernel.broker).tools.find((e) => e.declaration.name === 'echo')!;
  t.like(entry, { service: 'tool.echo', package: 'tool-echo', nodes: [kernel.broker.nodeID] });
  await kernel.loader.unload(dir);
  t.false(listTools(kernel.broker).some((d) => d.name === 'echo'));
});

test.serial('a tool service with a malformed declaration (bypassing defineTool) is left out with the reason', async (t) => {
  const dir = join(scratch, 'tool-raw');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'tool-raw', version: '1.0.0', type: 'module', capability: { kind: 'tool', roles: ['api'] } }));
  writeFileSync(
    join(dir, 'index.js'),
    `export default [
  { name: 'tool.raw', metadata: { tool: { name: 'raw', description: 'x', risk: 'low', side_effect: 'none', parameters: { type: 'array' } } }, actions: { execute: () => null } },
  { name: 'tool.misnamed', metadata: { tool: ${JSON.stringify(ECHO)} }, actions: { execute: () => null } },
  { name: 'tool.bare', actions: { execute: () => null } },
];\n`,
  );
  t.is((await kernel.loader.load(dir)).state, 'loaded');
  const scan = scanTools(kernel.broker);
  t.deepEqual(scan.tools.map((e) => e.declaration.name), []);
  t.deepEqual(
    scan.rejected.map((r) => [r.service, r.package]),
    [['tool.bare', 'tool-raw'], ['tool.misnamed', 'tool-raw'], ['tool.raw', 'tool-raw']],
  );
  t.regex(scan.rejected[0].reason, /declares no metadata.tool/);
  t.regex(scan.rejected[1].reason, /must be named 'tool.echo'/);
  t.regex(scan.rejected[2].reason, /invalid declaration: parameters must be a JSON schema with type 'object'/);
  await kernel.loader.unload(dir);
});

test.serial('execute checks the arguments on every call and hands the context to the tool', async (t) => {
  const dir = writeTool('tool-echo2', { ...ECHO, name: 'echo2' });
  t.is((await kernel.loader.load(dir)).state, 'loaded');
  const call = (params: unknown, user: unknown = OWNER) => kernel.broker.call('tool.echo2.execute', params as object, { meta: { user } });

  t.deepEqual(await call({ arguments: { text: 'ab', times: 2 }, context: CONTEXT }), { echoed: 'abab', entity: 'e-1', user: 'u-owner' });
  t.deepEqual(await call({ arguments: { text: 'ab' }, context: { entity_id: 'e-1' } }, null), { echoed: 'ab', entity: 'e-1', user: null });

  const bad = await t.throwsAsync(call({ arguments: { text: '', times: 7, extra: 1 }, context: CONTEXT }));
  t.like(bad, { type: 'TOOLS_ERR_INVALID_ARGUMENTS', code: 422 });
  const problem = toProblem(bad).body;
  t.like(problem, { status: 422, code: 'TOOLS_ERR_INVALID_ARGUMENTS', tool: 'echo2' });
  t.deepEqual((problem.errors ?? []).map((e) => e.field), ['text', 'times', 'extra']);

  const failed = await t.throwsAsync(call({ arguments: { text: 'x', fail: true }, context: CONTEXT }));
  t.like(failed, { type: 'TOOLS_ERR_FAILED', code: 422, message: 'asked to fail' });

  // the context is checked: an entity id, and no other entity or user than the caller's
  t.like(await t.throwsAsync(call({ arguments: { text: 'x' }, context: { user_id: 'u-owner' } })), { type: 'VALIDATION_ERROR' });
  t.like(await t.throwsAsync(call({ arguments: [], context: CONTEXT })), { type: 'VALIDATION_ERROR' });
  t.like(await t.throwsAsync(call({ arguments: { text: 'x' }, context: { ...CONTEXT, entity_id: 'e-2' } })), { type: 'TOOLS_ERR_CONTEXT', code: 403 });
  t.like(await t.throwsAsync(call({ arguments: { text: 'x' }, context: { ...CONTEXT, user_id: 'u-admin' } })), { type: 'TOOLS_ERR_CONTEXT', code: 403 });
  await kernel.loader.unload(dir);
});

test.serial('a tool package dropped into a watched package root is hot loaded and listed; removed, it is gone', async (t) => {
  const dir = writeTool('tool-hot', { ...ECHO, name: 'hot' }, root);
  t.truthy(await eventually(async () => listTools(kernel.broker).find((d) => d.name === 'hot')), 'the hot-loaded tool is listed');
  t.deepEqual(await kernel.broker.call('tool.hot.execute', { arguments: { text: 'hi' }, context: CONTEXT }, { meta: { user: OWNER } }), { echoed: 'hi', entity: 'e-1', user: 'u-owner' });
  rmSync(dir, { recursive: true, force: true });
  t.true(await eventually(async () => !listTools(kernel.broker).some((d) => d.name === 'hot')), 'the removed tool is no longer listed');
});
