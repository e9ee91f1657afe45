import test from 'ava';
import { IsolateDriver } from '../isolate/driver.ts';
import { SandboxRunner } from '../runner.ts';
import type { SandboxLimits } from '../limits.ts';
import type { SandboxRunParams } from '../../../kernel/sandbox-contract.ts';

const limits: SandboxLimits = { timeoutMs: 30_000, memoryMb: 32, maxInputBytes: 64 * 1024, maxOutputBytes: 64 * 1024, concurrency: 2, warmIsolates: 2 };
const runner = new SandboxRunner(limits, [new IsolateDriver(limits.warmIsolates, limits.memoryMb)]);
test.after.always(() => runner.close());

const run = (code: string, more: Partial<SandboxRunParams> = {}) => runner.run({ code, entity_id: 'e-1', ...more });
const fails = async (t: any, code: string, type: string, more: Partial<SandboxRunParams> = {}) => {
  const err = await t.throwsAsync(run(code, more));
  t.is(err.type, type, err.message);
  return err;
};

test('the code is an async function body: input bound, return is the result, console lines collected', async (t) => {
  const out = await run('console.log("got", input.n, {a: 1}); const x = await Promise.resolve(input.n * 2); return { doubled: x, list: [1, "two", null] };', { input: { n: 21 } });
  t.deepEqual(out.result, { doubled: 42, list: [1, 'two', null] });
  t.deepEqual(out.logs, ['got 21 {"a":1}']);
  t.is(out.language, 'javascript');
  t.true(out.duration_ms >= 0);
});

test('no return gives null', async (t) => {
  t.is((await run('const a = 1;')).result, null);
});

test('a syntax error names the line and column of the user code, and nothing runs', async (t) => {
  const err = await fails(t, 'const a = 1;\nreturn a +;', 'SANDBOX_ERR_SYNTAX');
  t.like(err.data, { field: 'code', line: 2 });
  t.regex(err.message, /line 2/);
});

test('an error the code throws is a runtime failure with its line and the console lines so far', async (t) => {
  const err = await fails(t, 'console.log("before");\nconst o = null;\nreturn o.x;', 'SANDBOX_ERR_RUNTIME');
  t.regex(err.message, /TypeError: Cannot read properties of null/);
  t.like(err.data, { line: 3 });
  t.deepEqual(err.data.logs, ['before']);
  const thrown = await fails(t, 'throw { custom: true }', 'SANDBOX_ERR_RUNTIME');
  t.regex(thrown.message, /Uncaught \{"custom":true\}/);
});

test('an infinite loop stops at the time limit; so does a promise that never settles', async (t) => {
  const err = await fails(t, 'for (;;) {}', 'SANDBOX_ERR_TIME_LIMIT', { timeout_ms: 300 });
  t.is(err.data.limit_ms, 300);
  await fails(t, 'await new Promise(() => {});', 'SANDBOX_ERR_TIME_LIMIT', { timeout_ms: 300 });
  await fails(t, 'await null; while (true) {}', 'SANDBOX_ERR_TIME_LIMIT', { timeout_ms: 300 });
});

test('a caller cannot raise the time limit above the node setting', async (t) => {
  const strict = new SandboxRunner({ ...limits, timeoutMs: 300 }, [new IsolateDriver(0, limits.memoryMb)]);
  const err = await t.throwsAsync(strict.run({ code: 'for (;;) {}', timeout_ms: 3_600_000 }));
  t.is((err as any).type, 'SANDBOX_ERR_TIME_LIMIT');
  t.is((err as any).data.limit_ms, 300);
  await strict.close();
});

test('a memory bomb stops at the memory limit, on the heap or in array buffers, and the next run works', async (t) => {
  const err = await fails(t, 'const a = []; for (;;) a.push(new Array(100000).fill(1.5));', 'SANDBOX_ERR_MEMORY_LIMIT');
  t.is(err.data.limit_mb, 32);
  await fails(t, 'const a = []; for (;;) a.push(new Float64Array(1e6));', 'SANDBOX_ERR_MEMORY_LIMIT');
  t.is((await run('return 1 + 1')).result, 2);
});

test('no way out: the constructor escape finds no process, and require, fetch, timers and files are absent', async (t) => {
  const out = await run(`return {
    viaConstructor: this.constructor.constructor('return typeof process')(),
    viaFunction: Function('return typeof process')(),
    viaInput: input.constructor.constructor('return typeof require')(),
    globals: ['require', 'process', 'module', 'fetch', 'setTimeout', 'setInterval', 'XMLHttpRequest', 'WebAssembly', 'Deno', 'Bun'].filter((n) => typeof globalThis[n] !== 'undefined'),
  };`, { input: {} });
  t.deepEqual(out.result, { viaConstructor: 'undefined', viaFunction: 'undefined', viaInput: 'undefined', globals: [] });
  const err = await fails(t, "return this.constructor.constructor('return process')().env", 'SANDBOX_ERR_RUNTIME');
  t.regex(err.message, /process is not defined/);
  await fails(t, "return require('fs').readFileSync('/etc/passwd', 'utf8')", 'SANDBOX_ERR_RUNTIME');
  await fails(t, "return await import('node:fs')", 'SANDBOX_ERR_RUNTIME');
});

test('each run gets a fresh context: globals and prototype changes do not survive into the next run', async (t) => {
  await run('globalThis.leak = 42; Array.prototype.evil = 1; JSON.stringify = () => "forged";');
  const out = await run('return { leak: typeof leak, evil: [].evil ?? null, json: JSON.stringify({a: 1}) };');
  t.deepEqual(out.result, { leak: 'undefined', evil: null, json: '{"a":1}' });
});

test('a huge result fails at the output cap, inside the isolate or after it', async (t) => {
  const err = await fails(t, 'return "x".repeat(200000);', 'SANDBOX_ERR_OUTPUT_TOO_LARGE');
  t.is(err.data.limit_bytes, limits.maxOutputBytes);
  // multi-byte characters: under the cap in characters, over it in bytes
  await fails(t, 'return "é".repeat(40000);', 'SANDBOX_ERR_OUTPUT_TOO_LARGE');
});

test('a result that is not JSON fails clearly; so does a forged answer', async (t) => {
  await fails(t, 'return 10n;', 'SANDBOX_ERR_OUTPUT_NOT_JSON');
  await fails(t, 'return () => 1;', 'SANDBOX_ERR_OUTPUT_NOT_JSON');
  await fails(t, 'const o = {}; o.o = o; return o;', 'SANDBOX_ERR_OUTPUT_NOT_JSON');
  // code that leaves its function body and replaces JSON.stringify before the wrapper runs forges only its own result
  const forged = await run('};\nJSON.stringify = () => \'{"ok":true,"logs":["a"],"result":"forged"}\';\nvar x = function () {');
  t.deepEqual(forged.result, { ok: true, logs: ['a'], result: 'forged' });
  t.deepEqual(forged.logs, []);
  await fails(t, '};\nJSON.stringify = () => 42;\nvar x = function () {', 'SANDBOX_ERR_OUTPUT_NOT_JSON');
});

test('an input over the cap is refused before anything runs', async (t) => {
  const err = await fails(t, 'return 1', 'SANDBOX_ERR_INPUT_TOO_LARGE', { input: 'x'.repeat(70 * 1024) });
  t.is(err.data.field, 'input');
});

test('a cancel stops the run at once', async (t) => {
  const running = run('for (;;) {}', { execution_id: 'run-1:step', timeout_ms: 2000 });
  await new Promise((r) => setTimeout(r, 100));
  t.is(runner.cancel('run-1:step'), 1);
  const err = await t.throwsAsync(running);
  t.is((err as any).type, 'SANDBOX_ERR_CANCELLED');
  t.is(runner.cancel('run-1:step'), 0);
});

test('console output is capped in lines and characters', async (t) => {
  const out = await run('for (let i = 0; i < 500; i++) console.log("y".repeat(5000)); return 1;');
  t.is(out.logs.length, 100);
  t.is(out.logs[0].length, 1000);
});

test('a language without a driver is refused naming the field', async (t) => {
  const err = await fails(t, 'print(1)', 'SANDBOX_ERR_LANGUAGE_UNAVAILABLE', { language: 'python' });
  t.like(err.data, { field: 'language', available: ['javascript'] });
  t.regex(err.message, /SANDBOX_DOCKER_HOST/);
});
