import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { startS3rver, type RunningS3rver } from './helpers/s3rver-server.ts';
import { freePort } from './helpers/process.ts';
import { eventually } from './helpers/eventually.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
let kernel: TestKernel;
let redis: ChildProcess;
let s3: RunningS3rver;
let db: Awaited<ReturnType<typeof createTestDatabase>>;

/** A Redis of the test's own, so the test can stop it without touching the machine's. */
async function startOwnRedis(): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const up = await eventually(async () => {
    const net = await import('node:net');
    return new Promise<boolean>((done) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), done(true)));
      s.on('error', () => done(false));
    });
  });
  if (!up) throw new Error('redis-server did not start (is it installed?)');
  return { proc, url };
}

test.before(async () => {
  db = await createTestDatabase('health');
  const own = await startOwnRedis();
  redis = own.proc;
  s3 = await startS3rver();
  kernel = await startTestKernel({
    roots: [FIXTURES],
    env: { DATABASE_URL: db.url, REDIS_URL: own.url, STORAGE_DRIVER: 's3', S3_ENDPOINT: s3.endpoint, S3_BUCKET: 'health-test', S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey },
  });
});
test.after.always(async () => {
  await kernel?.close().catch(() => undefined);
  redis?.kill('SIGKILL');
  await s3?.close().catch(() => undefined);
  await db?.drop();
});

test.serial('/health, /health/ready and /health/deep answer 200 with every store checked', async (t) => {
  t.deepEqual((await api(kernel.apiUrl, '/health')).body, { status: 'ok' });
  t.deepEqual((await api(kernel.apiUrl, '/health/ready')).body, { status: 'ready' });
  const deep = await api(kernel.apiUrl, '/health/deep');
  t.is(deep.status, 200, deep.text);
  const byName = Object.fromEntries(deep.body.components.map((c: { name: string }) => [c.name, c]));
  t.like(byName.database, { status: 'ok', driver: 'postgres' });
  t.like(byName.cache, { status: 'ok', driver: 'redis' });
  t.like(byName.queue, { status: 'ok', driver: 'bull' });
  t.like(byName.objects, { status: 'ok', driver: 's3' });
  t.like(byName.packages, { status: 'ok' });
  t.true(byName.packages.loaded.includes('@test/greeter'));
});

test.serial('/metrics is Prometheus text', async (t) => {
  await api(kernel.apiUrl, '/api/v1/greeter/open');
  const res = await api(kernel.apiUrl, '/metrics');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/plain/);
  t.regex(res.text, /^# (HELP|TYPE) moleculer_/m);
  // a histogram kept without quantiles still has the _sum and _count series the format requires
  const series = (suffix: string) => new RegExp(`^moleculer_request_time_${suffix}\\{[^}]*action="greeter.open"[^}]*\\} ([0-9.e+-]+)$`, 'm').exec(res.text)?.[1];
  const inf = new RegExp('^moleculer_request_time_bucket\\{[^}]*action="greeter.open"[^}]*le="\\+Inf"\\} (\\d+)$', 'm').exec(res.text)?.[1];
  t.truthy(inf, 'the +Inf bucket');
  t.is(series('count'), inf, '_count equals the +Inf bucket');
  t.true(Number(series('sum')) >= 0, '_sum');
});

test.serial('the object store down: /health/deep is 503 naming it', async (t) => {
  await s3.close();
  const deep = await api(kernel.apiUrl, '/health/deep');
  t.is(deep.status, 503);
  t.true(deep.body.failing.includes('objects'), deep.text);
  t.false(deep.body.failing.includes('database'));
});

test.serial('Redis down: /health/deep is 503 naming the cache and the queue; /health stays 200', async (t) => {
  redis.kill('SIGKILL');
  const deep = await api(kernel.apiUrl, '/health/deep');
  t.is(deep.status, 503);
  t.true(deep.body.failing.includes('cache'), deep.text);
  t.true(deep.body.failing.includes('queue'), deep.text);
  t.is((await api(kernel.apiUrl, '/health')).status, 200);
});

test.serial('the database gone: /health/deep is 503 naming it', async (t) => {
  await db.drop();
  const deep = await api(kernel.apiUrl, '/health/deep');
  t.is(deep.status, 503);
  t.true(deep.body.failing.includes('database'), deep.text);
  const component = deep.body.components.find((c: { name: string }) => c.name === 'database');
  t.is(component.status, 'failed');
  t.is(typeof component.error, 'string');
});
