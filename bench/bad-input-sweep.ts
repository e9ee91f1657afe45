/**
 * Bad-input sweep against a running server: every operation of /api/openapi.json, requested with
 * hostile variants (bad path ids, junk query strings, bodies of every wrong shape, as JSON and as
 * text), logged in as the given user. Prints how many requests went out and every answer of 500
 * or above other than 503/504 (a refusal must be a 4xx naming what is wrong, never a 500).
 * Exits with 1 when there was one. Start the server with RATE_LIMIT_PER_MINUTE=0 first.
 *
 *   node --import tsx bench/bad-input-sweep.ts [--url http://localhost:8000] [--email E] [--password P]
 */
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:8000' },
    email: { type: 'string', default: process.env.ADMIN_EMAIL ?? 'admin@localhost' },
    password: { type: 'string', default: process.env.ADMIN_PASSWORD ?? '' },
  },
});
const base = args.url.replace(/\/$/, '');

const STREAMING = /webhook|events|run-stream/;
const RAW_SEGMENTS = ['%ZZ', '%00', '..%2F..%2Fetc', 'a%2Fb'];
const QUERIES = ['', '?q=a%00b', '?limit=-1', '?limit=abc&offset=1e400', '?status=%ZZ', `?q=${'é'.repeat(500)}`, '?a[b][c][d][e][f][g]=1', '?__proto__[x]=1', '?days=999999'];
const BODIES: (string | undefined)[] = [
  undefined, '{', '[]', '"str"', '123', 'null',
  JSON.stringify({ name: 5, steps: 'x', email: [], password: {}, workspace_id: 1, status: 'bogus', x: 'y'.repeat(100_000) }),
  '{"__proto__": {"a": 1}, "constructor": {"prototype": {"b": 2}}}',
  JSON.stringify({ format: 'n8n', data: { nodes: [{ name: {}, type: [] }] } }),
  JSON.stringify({ decision: 'maybe', input: { deep: Array(50).fill({ a: [1] }) } }),
  JSON.stringify({ name: 'nul\u0000name', description: 'x\u0000', prompt: '\u0000', input: { ['k\u0000']: 'v\u0000' } }),
];

async function json(path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(base + path, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function main(): Promise<void> {
  const { access_token: token } = await json('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: args.email, password: args.password }) });
  const auth = { authorization: `Bearer ${token}` };
  const spec = await json('/api/openapi.json');
  const ws = await json('/api/v1/workspaces', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bad-input sweep', description: 'sweep', category: 'ops' }) });
  const ids = ['not-a-uuid', 'x'.repeat(300), '00000000-0000-0000-0000-000000000000', ws.id, '%00', '..%2F..%2Fetc', "'; DROP TABLE x;--"];
  let sent = 0;
  const failures: string[] = [];
  for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(operations).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
      // every id encoded; the first ones with every query and body, the rest (and raw, unencoded
      // segments a client may send: a bad escape, an encoded NUL or slash) with the first of each
      const fill = (segment: string) => path.replace(/\{[^}]+\}/g, segment);
      const paths = [...ids.map((id) => fill(encodeURIComponent(id))), ...RAW_SEGMENTS.map(fill)].filter((p, i, all) => all.indexOf(p) === i);
      sweep: for (const [i, p] of paths.entries()) {
        const full = i < 4;
        for (const query of full ? QUERIES : QUERIES.slice(0, 1)) {
          for (const body of method === 'get' ? [undefined] : full ? BODIES : BODIES.slice(0, 1)) {
            for (const type of body === undefined ? [undefined] : ['application/json', 'text/plain']) {
              const headers: Record<string, string> = { ...auth, ...(type ? { 'content-type': type } : {}) };
              const label = `${method.toUpperCase()} ${p}${query.slice(0, 40)} body=${String(body).slice(0, 60)}`;
              try {
                const res = await fetch(base + p + query, { method: method.toUpperCase(), headers, body, signal: AbortSignal.timeout(15_000) });
                const text = await res.text();
                sent++;
                if (res.status >= 500 && res.status !== 503 && res.status !== 504) failures.push(`${res.status} ${label}: ${text.slice(0, 200)}`);
              } catch (err) {
                failures.push(`no answer ${label}: ${(err as Error).message}`);
              }
              if (STREAMING.test(path)) break sweep;
            }
          }
        }
      }
    }
  }
  console.log(`${sent} requests; ${failures.length} answered 5xx or not at all`);
  for (const f of failures.slice(0, 50)) console.log(`  ${f}`);
  console.log(JSON.stringify({ bench: 'bad-input-sweep', requests: sent, failures: failures.length }));
  if (failures.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
