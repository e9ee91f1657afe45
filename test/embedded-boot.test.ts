import test from 'ava';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnKernel, type KernelProcess } from './helpers/process.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const dataDir = mkdtempSync(join(tmpdir(), 'wao-embedded-'));
const procs: KernelProcess[] = [];

test.after.always(() => {
  for (const p of procs) p.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

test.serial('npm start on an empty data dir boots the embedded stack and turns ready', async (t) => {
  t.deepEqual(readdirSync(dataDir), []);
  const k = await spawnKernel({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', STORAGE_DRIVER: 'local', CAPABILITY_PATHS: FIXTURES });
  procs.push(k);
  const seen = new Set<number>();
  const ready = await (async () => {
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      if (k.proc.exitCode !== null) throw new Error(k.output());
      const r = await fetch(`${k.apiUrl}/health/ready`).catch(() => undefined);
      if (r) seen.add(r.status);
      if (r?.status === 200) return true;
      if (r && r.status !== 503) throw new Error(`unexpected readiness status ${r.status}`);
      await new Promise((done) => setTimeout(done, 200));
    }
    return false;
  })();
  t.true(ready, k.output());
  t.deepEqual([...seen].filter((s) => s !== 200 && s !== 503), [], 'readiness is only ever 503 then 200');
  const deep = await (await fetch(`${k.apiUrl}/health/deep`)).json();
  const byName = Object.fromEntries(deep.components.map((c: { name: string }) => [c.name, c]));
  t.like(byName.database, { status: 'ok', driver: 'pglite', vector: true });
  t.like(byName.cache, { status: 'ok', driver: 'memory' });
  t.like(byName.queue, { status: 'ok', driver: 'memory' });
  t.like(byName.objects, { status: 'ok', driver: 'local' });
  t.true(existsSync(join(dataDir, 'pg')));
  t.true(existsSync(join(dataDir, 'objects')));
  const hello = await fetch(`${k.apiUrl}/api/v1/esm-hello/hello`);
  t.deepEqual(await hello.json(), { message: 'hello from esm' });

  // the built-in packages work on the embedded database too, under concurrent requests
  // (PGlite runs every connection in one session: named prepared statements would collide)
  const auth = { Authorization: 'Bearer owner-token', 'Content-Type': 'application/json' };
  const wf = await (await fetch(`${k.apiUrl}/api/v1/workflows`, { method: 'POST', headers: auth, body: JSON.stringify({
    name: 'embedded', steps: [
      { id: 'start', type: 'trigger', next: ['shape'] },
      { id: 'shape', type: 'transform', config: { set: { greeting: 'hello {{trigger.name}}' } }, next: [] },
    ] }) })).json();
  const ran = await (await fetch(`${k.apiUrl}/api/v1/workflows/${wf.id}/run`, { method: 'POST', headers: auth, body: JSON.stringify({ input: { name: 'ada' }, wait: true }) })).json();
  t.is(ran.status, 'completed', JSON.stringify(ran));
  const reads = await Promise.all(Array.from({ length: 12 }, () => fetch(`${k.apiUrl}/api/v1/workflows/runs/${ran.run_id ?? ran.id}`, { headers: auth })));
  t.deepEqual([...new Set(reads.map((r) => r.status))], [200]);
  k.kill('SIGTERM');
  t.is(await k.exited, 0, k.output());
});

test.serial('a second start re-opens the same data dir', async (t) => {
  const k = await spawnKernel({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', STORAGE_DRIVER: 'local', CAPABILITY_PATHS: FIXTURES });
  procs.push(k);
  t.true(await k.waitReady(60_000), k.output());
  const deep = await (await fetch(`${k.apiUrl}/health/deep`)).json();
  t.is(deep.status, 'ok');
  k.kill('SIGTERM');
  t.is(await k.exited, 0, k.output());
});
