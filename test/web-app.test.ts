import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { taskConstants } from '../plugins/tasks/domain/constants.ts';
// @ts-expect-error plain ESM script without types (npm start runs it before tsx)
import { ensureBuild } from '../web/scripts/ensure-build.mjs';
// @ts-expect-error plain ESM script without types
import { bundleSizes, INITIAL_JS_BUDGET_BYTES } from '../web/scripts/bundle-size.mjs';

// The web app's own checks, run by `npm test`: its type check, its component tests (Vitest),
// the generated API schema being current, and the initial-JS budget.
const ROOT = resolve(import.meta.dirname, '..');
const WEB = join(ROOT, 'web');

function bin(name: string): string {
  const own = join(WEB, 'node_modules', '.bin', name);
  return existsSync(own) ? own : join(ROOT, 'node_modules', '.bin', name);
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, CI: 'true', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => done({ code, out }));
  });
}

test('the task constants fixture of the web tests is what the tasks package serves', (t) => {
  const fixture = JSON.parse(readFileSync(join(WEB, 'test', 'fixtures', 'task-constants.json'), 'utf8'));
  t.deepEqual(fixture, JSON.parse(JSON.stringify(taskConstants())));
});

test('web/ type-checks (TypeScript strict)', async (t) => {
  t.timeout(300_000);
  const { code, out } = await run(bin('tsc'), ['--noEmit', '-p', '.'], WEB);
  t.is(code, 0, out);
});

test('the component tests (Vitest + Testing Library) pass', async (t) => {
  t.timeout(300_000);
  const report = join(mkdtempSync(join(tmpdir(), 'wao-vitest-')), 'report.json');
  try {
    const { code, out } = await run(bin('vitest'), ['run', '--reporter=json', `--outputFile=${report}`], WEB);
    t.true(existsSync(report), out);
    const result = JSON.parse(readFileSync(report, 'utf8')) as { numTotalTests: number; numPassedTests: number; numFailedTests: number; testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[] };
    const failures = result.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status === 'failed').map((a) => `${a.fullName}: ${a.failureMessages.join('\n')}`);
    t.deepEqual(failures, []);
    t.true(result.numTotalTests > 0, 'vitest ran tests');
    t.is(code, 0, out);
    t.log(`vitest: ${result.numPassedTests} of ${result.numTotalTests} passed`);
  } finally {
    rmSync(join(report, '..'), { recursive: true, force: true });
  }
});

test('web/src/api/schema.d.ts is what `npm run api:client` generates from the API now', async (t) => {
  t.timeout(300_000);
  const { code, out } = await run(process.execPath, ['--import', 'tsx', 'web/scripts/api-client.ts', '--check'], ROOT);
  t.is(code, 0, out);
});

test('the initial JS stays within 250 KB gzip (entry chunk and its static imports, from the Vite manifest)', async (t) => {
  t.timeout(300_000);
  ensureBuild({ quiet: true });
  const sizes = bundleSizes(join(WEB, 'dist')) as { initialGzip: number; chunks: { file: string; gzip: number; entry: boolean }[] };
  t.log(sizes.chunks.map((c) => `${c.file} ${(c.gzip / 1024).toFixed(1)} KB`).join('\n'));
  t.true(sizes.initialGzip <= INITIAL_JS_BUDGET_BYTES, `initial JS is ${sizes.initialGzip} bytes gzip`);
  t.true(sizes.chunks.some((c) => /EditorPage/.test(c.file)), 'the editor is a route chunk of its own');
  // the app's own JSX compiles to jsxDEV calls only in a development build
  const devBuild = sizes.chunks.filter((c) => c.entry && readFileSync(join(WEB, 'dist', c.file), 'utf8').includes('jsxDEV'));
  t.deepEqual(devBuild, [], 'a production bundle, whatever NODE_ENV the build ran under');
});
