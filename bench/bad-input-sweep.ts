/**
 * Bad-input sweep against a running server, the full form of the one `npm test` runs
 * (test/bad-input-sweep.test.ts; the cases live in test/helpers/bad-input-sweep.ts): every
 * operation of /api/openapi.json with hostile path ids, huge, negative and non-numbers in every
 * query parameter, junk query strings and bodies of every wrong shape (as JSON and as text),
 * crossed, logged in as the given user. Prints how many requests went out, every answer of 500
 * or above, stack trace or request not answered, and every numeric query value out of range
 * that was not a 422 naming the parameter. Exits with 1 when there was one. Start the server
 * with RATE_LIMIT_PER_MINUTE=0 first.
 *
 *   node --import tsx bench/bad-input-sweep.ts [--url http://localhost:8000] [--email E] [--password P] [--form full|short]
 */
import { parseArgs } from 'node:util';
import { sweep, type SweepForm } from '../test/helpers/bad-input-sweep.ts';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:8000' },
    email: { type: 'string', default: process.env.ADMIN_EMAIL ?? 'admin@localhost' },
    password: { type: 'string', default: process.env.ADMIN_PASSWORD ?? '' },
    form: { type: 'string', default: 'full' },
  },
});
const base = args.url.replace(/\/$/, '');

async function json(path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(base + path, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function main(): Promise<void> {
  const login = async (): Promise<string> =>
    (await json('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: args.email, password: args.password }) })).access_token;
  const auth = { authorization: `Bearer ${await login()}`, 'content-type': 'application/json' };
  const spec = await json('/api/openapi.json');
  const ws = await json('/api/v1/workspaces', { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bad-input sweep', description: 'sweep', category: 'ops' }) });
  const task = await json('/api/v1/tasks', { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Bad-input sweep', workspace_id: ws.id }) });
  const started = performance.now();
  const result = await sweep(spec, { base, login, realIds: [ws.id, task.id], form: args.form as SweepForm, concurrency: 4, timeoutMs: 15_000 });
  const seconds = (performance.now() - started) / 1000;
  console.log(`${result.requests} requests in ${seconds.toFixed(1)} s; ${result.failures.length} answered 5xx, showed a stack trace or not at all; ${result.unnamed.length} numeric values out of range not a 422 naming them`);
  for (const f of [...result.failures, ...result.unnamed].slice(0, 50)) console.log(`  ${f}`);
  console.log(JSON.stringify({ bench: 'bad-input-sweep', form: args.form, requests: result.requests, seconds: Number(seconds.toFixed(1)), failures: result.failures.length, unnamed: result.unnamed.length }));
  if (result.failures.length || result.unnamed.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
