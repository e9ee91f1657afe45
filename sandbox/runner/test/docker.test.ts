import test from 'ava';
import Docker from 'dockerode';
import { dockerConnection, DockerDriver } from '../docker/driver.ts';
import { IsolateDriver } from '../isolate/driver.ts';
import { SandboxRunner } from '../runner.ts';
import type { SandboxLimits } from '../limits.ts';
import type { SandboxRunParams } from '../../../kernel/sandbox-contract.ts';
import { buildTestImages, PYTHON_IMAGE, SHELL_IMAGE } from './docker-images.ts';

/**
 * The container driver against a real Docker engine: set SANDBOX_TEST_DOCKER_HOST (e.g.
 * unix:///var/run/docker.sock). The engine needs no registry: the images are built here.
 * Without the variable these tests are skipped (no engine, nothing to test against).
 */
const host = process.env.SANDBOX_TEST_DOCKER_HOST ?? '';
const maybe = host ? test.serial : test.serial.skip;

const limits: SandboxLimits = { timeoutMs: 20_000, memoryMb: 32, maxInputBytes: 64 * 1024, maxOutputBytes: 64 * 1024, concurrency: 2, warmIsolates: 0 };
let runner: SandboxRunner;
test.before(async () => {
  if (!host) return;
  await buildTestImages(new Docker(dockerConnection(host)));
  runner = new SandboxRunner(limits, [new IsolateDriver(0, limits.memoryMb), new DockerDriver({ host, images: { python: PYTHON_IMAGE, shell: SHELL_IMAGE }, pidsLimit: 16, maxRunMs: limits.timeoutMs })]);
});
test.after.always(async () => runner?.close());

const run = (language: SandboxRunParams['language'], code: string, more: Partial<SandboxRunParams> = {}) => runner.run({ language, code, entity_id: 'e-1', ...more });
const fails = async (t: any, promise: Promise<unknown>, type: string) => {
  const err = await t.throwsAsync(promise);
  t.is(err.type, type, err.message);
  return err;
};
const leftover = async () => (await new Docker(dockerConnection(host)).listContainers({ all: true, filters: { label: ['wao.sandbox'] } })).length;

maybe('python: input bound, result assigned, prints collected; the container is removed', async (t) => {
  const out = await run('python', 'print("got", input["n"])\nresult = {"n": input["n"] + 1, "words": [w.upper() for w in input["words"]]}', { input: { n: 1, words: ['a', 'b'] } });
  t.deepEqual(out.result, { n: 2, words: ['A', 'B'] });
  t.deepEqual(out.logs, ['got 1']);
  t.is(out.language, 'python');
  t.is(await leftover(), 0);
});

maybe('python: a syntax error names its line; an exception its line and type', async (t) => {
  const syntax = await fails(t, run('python', 'x = 1\ny = (\n'), 'SANDBOX_ERR_SYNTAX');
  t.is(syntax.data.field, 'code');
  const raised = await fails(t, run('python', 'a = 1\nraise ValueError("bad value")'), 'SANDBOX_ERR_RUNTIME');
  t.regex(raised.message, /ValueError: bad value \(line 2\)/);
});

maybe('no network inside: a socket to anywhere fails', async (t) => {
  const out = await run('python', 'import socket\ntry:\n    socket.create_connection(("1.1.1.1", 53), timeout=2)\n    result = "connected"\nexcept OSError as e:\n    result = "refused"');
  t.is(out.result, 'refused');
});

maybe('limits: an infinite loop stops at its time, a memory bomb at its memory, a fork bomb at its pids', async (t) => {
  await fails(t, run('python', 'while True: pass', { timeout_ms: 1500 }), 'SANDBOX_ERR_TIME_LIMIT');
  await fails(t, run('python', 'a = []\nwhile True: a.append(bytearray(1 << 20))'), 'SANDBOX_ERR_MEMORY_LIMIT');
  const forks = await run('shell', 'i=0; while [ $i -lt 40 ]; do sleep 5 & i=$((i+1)); done 2>/dev/null; echo started', { timeout_ms: 10_000 }).catch((e) => e);
  t.not(forks?.result?.stdout, 'started\n', 'the pid limit stopped the forks');
  t.is(await leftover(), 0);
});

maybe('shell: stdin is the input JSON, stdout the result, a non-zero exit fails with stderr', async (t) => {
  const out = await run('shell', 'cat; echo; echo done >&2', { input: { a: 1 } });
  t.deepEqual(out.result, { exit_code: 0, stdout: '{"a":1}\n' });
  t.deepEqual(out.logs, ['done']);
  const bad = await fails(t, run('shell', 'echo broken >&2; exit 3'), 'SANDBOX_ERR_RUNTIME');
  t.like(bad.data, { exit_code: 3 });
});

maybe('a huge output is cut and fails; the root filesystem is read-only', async (t) => {
  await fails(t, run('shell', 'yes x | head -c 1000000'), 'SANDBOX_ERR_OUTPUT_TOO_LARGE');
  const ro = await fails(t, run('shell', 'echo x > /bin/evil'), 'SANDBOX_ERR_RUNTIME');
  t.regex(ro.message, /status/);
});

maybe('a cancel kills the container at once', async (t) => {
  const running = run('shell', 'sleep 30', { execution_id: 'cancel-me' });
  await new Promise((r) => setTimeout(r, 1500));
  t.is(runner.cancel('cancel-me'), 1);
  await fails(t, running, 'SANDBOX_ERR_CANCELLED');
  t.is(await leftover(), 0);
});

maybe('containers a dead node left behind are swept once they are older than any run', async (t) => {
  const docker = new Docker(dockerConnection(host));
  const orphan = await docker.createContainer({ Image: SHELL_IMAGE, Cmd: ['/bin/sh', '-c', 'sleep 300'], Labels: { 'wao.sandbox': 'shell' }, HostConfig: { NetworkMode: 'none' } });
  await new Promise((r) => setTimeout(r, 1100));
  // a driver whose runs may take no time at all: every sandbox container created before now is an orphan
  const sweeper = new SandboxRunner(limits, [new DockerDriver({ host, images: { python: PYTHON_IMAGE, shell: SHELL_IMAGE }, pidsLimit: 16, maxRunMs: -60_000 })]);
  t.deepEqual((await sweeper.run({ language: 'shell', code: 'echo swept' })).result, { exit_code: 0, stdout: 'swept\n' });
  const { eventually } = await import('../../../test/helpers/eventually.ts');
  t.true(await eventually(async () => !(await docker.listContainers({ all: true })).some((c) => c.Id === orphan.id)));
});

maybe('an image that is not on the engine is a clear container error', async (t) => {
  const lonely = new SandboxRunner(limits, [new DockerDriver({ host, images: { python: 'wao-missing:none', shell: 'wao-missing:none' }, pidsLimit: 16, maxRunMs: limits.timeoutMs })]);
  const err = await fails(t, lonely.run({ language: 'shell', code: 'echo 1' }), 'SANDBOX_ERR_CONTAINER');
  t.regex(err.message, /never pulled/);
});

maybe('with an engine configured, a python code step saves and runs through the workflow engine', async (t) => {
  const { startWorkflowsKernel, runUntil, receipt } = await import('../../../test/workflows-helpers.ts');
  const k = await startWorkflowsKernel('sandbox_docker_code', {
    nodes: ['trigger', 'code'],
    links: ['sandbox/runner'],
    env: { SANDBOX_DOCKER_HOST: host, SANDBOX_DOCKER_IMAGE_PYTHON: PYTHON_IMAGE, SANDBOX_DOCKER_IMAGE_SHELL: SHELL_IMAGE, SANDBOX_TIMEOUT_SECONDS: '60' },
  });
  try {
    const types = await k.call('/api/v1/workflows/node-types', { token: 'owner-token' });
    t.deepEqual(types.body.items.find((x: { type: string }) => x.type === 'code').config_schema.properties.language.enum, ['javascript', 'python', 'shell']);
    const wf = await k.createWorkflow('owner-token', { name: 'py', steps: [{ id: 'start', type: 'trigger', next: ['py'] }, { id: 'py', type: 'code', config: { language: 'python', code: 'result = sum(input["xs"])' }, next: [] }] });
    const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: { xs: [1, 2, 3] } } });
    const done = await runUntil(k, 'owner-token', started.body.run_id, ['completed', 'failed'], 60_000);
    t.is(done.status, 'completed', JSON.stringify(done.error));
    t.is(receipt(done, 'py').output, 6);
  } finally {
    await k.close();
  }
});
