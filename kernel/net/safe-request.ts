import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { AddressPolicy } from './address-policy.ts';

export interface SafeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  policy: AddressPolicy;
  /** the resolver (node:dns lookup unless a test gives its own) */
  resolve?: typeof dnsLookup;
  /** aborting it stops the exchange at once (the request is destroyed); its reason is the error */
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  url: string;
  redirects: number;
  /** the address actually connected to for the final hop */
  remote_address: string;
}

/** Who refuses a target and which setting opens one, for the error's message. */
export interface BlockedHint {
  who: string;
  setting: string;
}

const HTTP_NODE_HINT: BlockedHint = { who: 'the http node', setting: 'WORKFLOW_HTTP_ALLOW' };

export class BlockedTargetError extends Error {
  /** the refusal alone (`127.0.0.1 is a loopback address`), without the advice */
  readonly reason: string;
  constructor(message: string, hint: BlockedHint = HTTP_NODE_HINT) {
    super(`${message}; ${hint.who} refuses loopback, link-local, private and unique-local targets (the operator can open some with ${hint.setting})`);
    this.name = 'BlockedTargetError';
    this.reason = message;
  }
}

/** A DNS lookup that only hands out addresses the policy accepts (every address of the name is checked). */
export function guardedLookup(policy: AddressPolicy, hostname: string, resolve: typeof dnsLookup, hint?: BlockedHint): LookupFunction {
  return (host, options, callback) => {
    resolve(host, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as LookupAddress[];
      if (!policy.hostAllowed(hostname)) {
        for (const a of list) {
          const why = policy.refusal(a.address);
          if (why) return callback(new BlockedTargetError(`${hostname} resolves to ${why}`, hint), '', 0);
        }
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** The exchange did not finish within `timeoutMs`. */
export class RequestDeadlineError extends Error {
  constructor(timeoutMs: number) {
    super(`http: no complete answer within ${timeoutMs} ms`);
    this.name = 'RequestDeadlineError';
  }
}

/** Why an aborted signal stopped the exchange: its reason when that is an error. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('http: the request was aborted');
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function oneHop(req: SafeRequest, url: URL, deadline: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; remote: string }> {
  return new Promise((resolve, reject) => {
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(hostname) && !req.policy.hostAllowed(hostname)) {
      const why = req.policy.refusal(hostname);
      if (why) return reject(new BlockedTargetError(`target ${why}`));
    }
    if (req.signal?.aborted) return reject(abortReason(req.signal));
    const client = url.protocol === 'https:' ? https : http;
    const remaining = Math.max(1, deadline - Date.now());
    const outgoing = client.request(url, { method: req.method, headers: req.headers, agent: false, lookup: guardedLookup(req.policy, hostname, req.resolve ?? dnsLookup), timeout: remaining });
    let remote = '';
    let settled = false;
    const onAbort = (): void => fail(abortReason(req.signal!));
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      outgoing.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new RequestDeadlineError(req.timeoutMs)), remaining);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.once('socket', (socket: Socket) => {
      // the address actually connected to, checked again: a DNS answer that changed between
      // lookup and connect (rebinding) is caught here
      socket.once('connect', () => {
        remote = socket.remoteAddress ?? '';
        const why = req.policy.hostAllowed(hostname) ? undefined : req.policy.refusal(remote);
        if (why) fail(new BlockedTargetError(`connected address ${why}`));
      });
    });
    outgoing.on('error', (err) => fail(err));
    outgoing.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) return fail(new Error(`http: response body larger than ${req.maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.once('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), remote });
      });
      res.on('error', (err) => fail(err));
    });
    if (req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD') outgoing.end(req.body);
    else outgoing.end();
  });
}

function parseBody(body: Buffer, contentType: string | undefined): unknown {
  const text = body.toString('utf8');
  if (/json/i.test(contentType ?? '')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** One HTTP exchange with SSRF protection on every hop (redirects included), a size cap and a deadline. */
export async function safeRequest(req: SafeRequest): Promise<SafeResponse> {
  let url = new URL(req.url);
  let method = req.method;
  let body = req.body;
  const deadline = Date.now() + req.timeoutMs;
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`http: only http and https URLs are allowed, not ${url.protocol}`);
    const hop = await oneHop({ ...req, method, body }, url, deadline);
    const location = hop.headers.location;
    if (REDIRECTS.has(hop.status) && location && req.maxRedirects > 0) {
      if (redirects >= req.maxRedirects) throw new Error(`http: more than ${req.maxRedirects} redirects`);
      url = new URL(location, url);
      if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(hop.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    return { status: hop.status, headers, body: parseBody(hop.body, headers['content-type']), url: url.toString(), redirects, remote_address: hop.remote };
  }
}
