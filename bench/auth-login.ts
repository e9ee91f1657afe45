/**
 * Login throughput and latency against a real kernel (PostgreSQL, detached in its own session),
 * at a few concurrencies, plus the cost of one password hash with the chosen scrypt parameters.
 * Password hashing dominates a login on purpose: this shows what that choice costs.
 *
 *   node --import tsx bench/auth-login.ts [--concurrency 1,4,16,64] [--seconds 8] [--hashes 20]
 *        [--env KEY=VALUE ...]
 *
 * The kernel uses a fresh database on the machine's PostgreSQL (dropped at the end). Only
 * successful logins are sent, so the failed-login limits never apply.
 */
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashPassword, SCRYPT_PARAMS, verifyPassword } from '../plugins/auth/lib/password.ts';
import { launchKernel } from './lib/kernel-process.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { stopAll, waitForStatus } from './lib/processes.ts';
import { mean, percentile, round } from './lib/stats.ts';

const EMAIL = 'bench@auth.bench';
const PASSWORD = 'bench password of decent length';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '1,4,16,64' },
    seconds: { type: 'string', default: '8' },
    hashes: { type: 'string', default: '20' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const levels = (args.concurrency ?? '').split(',').map(Number);
const seconds = Number(args.seconds);
const hashes = Number(args.hashes);
if (!levels.length || levels.some((c) => !(Number.isInteger(c) && c > 0)) || !(seconds > 0) || !(hashes > 0)) {
  throw new Error('--concurrency must list positive integers; --seconds and --hashes must be positive');
}
const extraEnv = Object.fromEntries((args.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

/** The part of autocannon's result read here (the package ships no types). */
interface AutocannonResult {
  duration: number;
  errors: number;
  non2xx: number;
  '2xx': number;
  latency: { p50: number; p99: number; average: number };
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

interface LoginWindow {
  concurrency: number;
  loginsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
}

async function loginLoad(apiUrl: string, concurrency: number, durationSec: number): Promise<LoginWindow> {
  const result = await autocannon({
    url: `${apiUrl}/api/v1/auth/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    connections: concurrency,
    duration: durationSec,
    pipelining: 1,
  });
  return {
    concurrency,
    loginsPerSec: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failed: result.non2xx + result.errors,
  };
}

/** One hash at a time in this process: the cost of the parameters themselves. */
async function hashCost(count: number): Promise<{ meanMs: number; p50Ms: number; verifyMeanMs: number }> {
  const hashTimes: number[] = [];
  const verifyTimes: number[] = [];
  await hashPassword('warm-up password'); // first call pays for loading the crypto binding
  for (let i = 0; i < count; i++) {
    let started = performance.now();
    const hash = await hashPassword(`password number ${i}`);
    hashTimes.push(performance.now() - started);
    started = performance.now();
    await verifyPassword(`password number ${i}`, hash);
    verifyTimes.push(performance.now() - started);
  }
  return { meanMs: mean(hashTimes), p50Ms: percentile(hashTimes, 50), verifyMeanMs: mean(verifyTimes) };
}

async function main(): Promise<void> {
  const { N, r, p } = SCRYPT_PARAMS;
  const memoryMiB = (128 * N * r * p) / 1024 / 1024;
  console.log(`scrypt N=2^${Math.log2(N)} r=${r} p=${p}: ${memoryMiB} MiB per hash; measuring ${hashes} hashes in this process...`);
  const cost = await hashCost(hashes);
  console.log(`  one hash: mean ${round(cost.meanMs, 1)} ms, p50 ${round(cost.p50Ms, 1)} ms; one verify: mean ${round(cost.verifyMeanMs, 1)} ms (${availableParallelism()} CPUs here)`);

  const work = mkdtempSync(join(tmpdir(), 'bench-auth-login-'));
  const dbName = `bench_auth_login_${process.pid}_${Date.now()}`;
  let dbCreated = false;
  try {
    createDatabase(dbName);
    dbCreated = true;
    const k = await launchKernel({
      via: 'node',
      dataDir: join(work, 'data'),
      logFile: join(work, 'kernel.log'),
      env: { DATABASE_URL: databaseUrl(dbName), ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD, ...extraEnv },
    });
    await waitForStatus(`${k.apiUrl}/health/ready`, 200, { proc: k.proc, timeoutMs: 120_000 });
    const probe = await fetch(`${k.apiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
    if (probe.status !== 200) throw new Error(`login does not work on the bench kernel: ${probe.status} ${await probe.text()}`);

    await loginLoad(k.apiUrl, Math.min(4, Math.max(...levels)), 2); // warm-up
    const windows: LoginWindow[] = [];
    console.log(`\nPOST /api/v1/auth/login, ${seconds} s per concurrency`);
    for (const concurrency of levels) {
      const w = await loginLoad(k.apiUrl, concurrency, seconds);
      windows.push(w);
      console.log(
        `  concurrency ${String(concurrency).padStart(3)}: ${round(w.loginsPerSec, 1).toString().padStart(7)} logins/s  p50 ${w.p50Ms} ms  p99 ${w.p99Ms} ms${w.failed ? `  failed ${w.failed}` : ''}`,
      );
    }
    const best = Math.max(...windows.map((w) => w.loginsPerSec));
    console.log(`\nbest ${round(best, 1)} logins/s; a hash costs ${round(cost.meanMs, 1)} ms, so hashing alone allows ~${round(1000 / cost.meanMs, 1)} logins/s per core in use`);
    console.log(
      JSON.stringify({
        bench: 'auth-login',
        scrypt: { N, r, p, memoryMiB, hashMeanMs: round(cost.meanMs, 1), hashP50Ms: round(cost.p50Ms, 1), verifyMeanMs: round(cost.verifyMeanMs, 1) },
        cpus: availableParallelism(),
        windowSeconds: seconds,
        windows: windows.map((w) => ({ ...w, loginsPerSec: round(w.loginsPerSec, 1) })),
        bestLoginsPerSec: round(best, 1),
      }),
    );
  } finally {
    await stopAll(15_000);
    if (dbCreated) dropDatabase(dbName);
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench/auth-login failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
