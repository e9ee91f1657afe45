/**
 * The bad-input sweep: every operation of an OpenAPI document requested with hostile variants
 * (bad path ids, huge, negative and non-numbers in every query parameter, junk query strings,
 * bodies of every wrong shape as JSON and as text), logged in as an owner. It collects every
 * answer of 500 or above, every body that shows a stack trace and every request that got no
 * answer in time; and every numeric query parameter that took an out-of-range value without a
 * 422 naming it. `short` is the form `npm test` runs; `full` (bench/bad-input-sweep.ts) crosses
 * ids, queries and bodies.
 */

export type SweepForm = 'short' | 'full';

export interface SweepOptions {
  base: string;
  /** a fresh bearer token (logs in); called again when the token stops working (a logout route) */
  login(): Promise<string>;
  /** ids of real records of the caller, tried in every path parameter besides hostile ones */
  realIds: string[];
  form: SweepForm;
  /** the operations to sweep, by path (default: all) */
  only?(path: string): boolean;
  /** operations in flight at once */
  concurrency?: number;
  timeoutMs?: number;
}

export interface SweepResult {
  requests: number;
  /** 5xx answers, stack traces, requests not answered in time */
  failures: string[];
  /** numeric query parameters that took a hostile value without a 422 naming them */
  unnamed: string[];
}

interface Operation {
  method: string;
  path: string;
  query: { name: string; numeric: boolean }[];
}

interface Probe {
  path: string;
  query: string;
  body?: string;
  type?: string;
  /** the numeric query parameter this probe puts out of range: a 422 must name it */
  names?: string;
}

const HOSTILE_IDS = ['not-a-uuid', 'x'.repeat(300), '00000000-0000-0000-0000-000000000000', "'; DROP TABLE x;--"];
const RAW_SEGMENTS = ['%ZZ', '%00', '..%2F..%2Fetc'];
/** out of range, not integers, not numbers: each must be a 422 for a numeric parameter */
const HOSTILE_NUMBERS = ['1e99', '-1', '99999999999999999999', '2.5', 'abc', '1e400'];
const HOSTILE_VALUES = [...HOSTILE_NUMBERS, '', '%ZZ'];
const JUNK_QUERIES = ['?q=a%00b', '?limit=abc&offset=1e400', `?q=${'é'.repeat(500)}`, '?a[b][c][d][e][f][g]=1', '?__proto__[x]=1'];
const BODIES: string[] = [
  '{', '[]', '"str"', '123', 'null', '{}',
  JSON.stringify({ name: 5, steps: 'x', email: [], password: {}, workspace_id: 1, status: 'bogus', limit: 1e99, offset: -1, priority: 1e308, version: 1e99, x: 'y'.repeat(100_000) }),
  '{"__proto__": {"a": 1}, "constructor": {"prototype": {"b": 2}}}',
  JSON.stringify({ format: 'n8n', data: { nodes: [{ name: {}, type: [] }] } }),
  JSON.stringify({ decision: 'maybe', input: { deep: Array(50).fill({ a: [1] }) } }),
  JSON.stringify({ name: 'nul\u0000name', description: 'x\u0000', prompt: '\u0000', input: { ['k\u0000']: 'v\u0000' } }),
];
const STACK = /\n\s+at [^\n]+:\d+:\d+|\bat (async )?[\w.<>]+ \([^)]*\.(ts|js|mjs):\d+:\d+\)/;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

type OpenApi = { paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { type?: unknown; items?: { type?: unknown } } }[] }>> };

function numericSchema(schema: { type?: unknown; items?: { type?: unknown } } | undefined): boolean {
  const types = [schema?.type, schema?.items?.type].flat();
  return types.includes('integer') || types.includes('number');
}

/** The operations, reads first and logouts last (a logout ends the token the others use). */
export function operationsOf(doc: OpenApi): Operation[] {
  const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      path,
      query: (item[method].parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, numeric: numericSchema(p.schema) })),
    })),
  );
  const rank = (op: Operation) => (/logout/.test(op.path) ? 3 : op.method === 'get' ? 0 : op.method === 'delete' ? 2 : 1);
  return ops.sort((a, b) => rank(a) - rank(b));
}

/** The requests of one operation. */
export function probesOf(op: Operation, realIds: string[], form: SweepForm): Probe[] {
  const fill = (segment: string) => op.path.replace(/\{[^}]+\}/g, segment);
  const templated = op.path.includes('{');
  const ids = [...new Set([...realIds.map((id) => fill(encodeURIComponent(id))), ...HOSTILE_IDS.map((id) => fill(encodeURIComponent(id))), ...RAW_SEGMENTS.map(fill)])];
  const main = fill(encodeURIComponent(realIds[0] ?? 'x'));
  const reads = op.method === 'get' || op.method === 'delete';
  // every body as JSON; as text, one (the gateway decides by content type, not by route)
  const withBodies = (path: string, query: string, types = ['application/json']): Probe[] =>
    op.method === 'get' ? [{ path, query }] : BODIES.flatMap((body, i) => (i === 0 ? [...types, 'text/plain'] : types).map((type) => ({ path, query, body, type })));
  const probes: Probe[] = [];
  for (const path of templated ? ids : [main]) probes.push({ path, query: '', ...(op.method === 'get' ? {} : { body: '{}', type: 'application/json' }) });
  for (const param of op.query) {
    for (const value of param.numeric ? HOSTILE_VALUES : HOSTILE_VALUES.slice(0, 2)) {
      probes.push({ path: main, query: `?${encodeURIComponent(param.name)}=${value}`, names: param.numeric && HOSTILE_NUMBERS.includes(value) ? param.name : undefined });
    }
  }
  // a write's params take the query string too: the pollution ones there
  for (const query of reads ? JUNK_QUERIES : JUNK_QUERIES.filter((q) => /%00|__proto__|\[b\]/.test(q))) probes.push({ path: main, query });
  probes.push(...withBodies(main, ''));
  if (form === 'full') for (const path of ids.slice(0, 4)) for (const query of ['', ...JUNK_QUERIES]) probes.push(...withBodies(path, query, ['application/json', 'text/plain']));
  return probes;
}

/** Runs the sweep; resolves with what went wrong (nothing, when the API holds). */
export async function sweep(doc: OpenApi, opts: SweepOptions): Promise<SweepResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const result: SweepResult = { requests: 0, failures: [], unnamed: [] };
  let token = await opts.login();
  let relogin: Promise<void> | undefined;
  const refresh = (stale: string) => {
    relogin ??= (async () => {
      const me = await fetch(`${opts.base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${stale}` } });
      if (me.status === 401) token = await opts.login();
    })().finally(() => (relogin = undefined));
    return relogin;
  };
  const send = async (op: Operation, probe: Probe) => {
    const used = token;
    const headers: Record<string, string> = { authorization: `Bearer ${used}`, ...(probe.type ? { 'content-type': probe.type } : {}) };
    const label = `${op.method.toUpperCase()} ${probe.path}${probe.query.slice(0, 60)}${probe.body ? ` ${probe.type} ${probe.body.slice(0, 60)}` : ''}`;
    try {
      const res = await fetch(opts.base + probe.path + probe.query, { method: op.method.toUpperCase(), headers, body: probe.body, signal: AbortSignal.timeout(timeoutMs) });
      result.requests++;
      if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await res.body?.cancel(); // a stream that opened is an answer; it would not end
        return;
      }
      const text = await res.text();
      if (res.status >= 500) result.failures.push(`${res.status} ${label}: ${text.slice(0, 300)}`);
      else if (STACK.test(text)) result.failures.push(`stack trace in ${res.status} ${label}: ${text.slice(0, 300)}`);
      if (probe.names) {
        const fields = res.status === 422 ? ((JSON.parse(text) as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field) : [];
        const named = fields.some((f) => f === probe.names || f.startsWith(`${probe.names}[`));
        if (!named) result.unnamed.push(`${res.status} ${label}: ${text.slice(0, 200)}`);
      }
      if (res.status === 401) await refresh(used);
    } catch (err) {
      result.failures.push(`no answer ${label}: ${(err as Error).message}`);
    }
  };
  const ops = operationsOf(doc).filter((op) => opts.only?.(op.path) ?? true);
  // reads run side by side; writes too; deletes and logouts one operation at a time, last
  const phases = [ops.filter((o) => o.method === 'get'), ops.filter((o) => !['get', 'delete'].includes(o.method) && !/logout/.test(o.path)), ops.filter((o) => o.method === 'delete' || /logout/.test(o.path))];
  for (const [i, phase] of phases.entries()) {
    const queue = [...phase];
    const width = i === 2 ? 1 : (opts.concurrency ?? 4);
    await Promise.all(
      Array.from({ length: width }, async () => {
        for (let op = queue.shift(); op; op = queue.shift()) for (const probe of probesOf(op, opts.realIds, opts.form)) await send(op, probe);
      }),
    );
  }
  return result;
}
