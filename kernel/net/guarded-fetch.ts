import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { AddressPolicy } from './address-policy.ts';
import { BlockedTargetError, guardedLookup, type BlockedHint } from './safe-request.ts';

export interface GuardedFetchOptions {
  policy: AddressPolicy;
  /** names the refusing component and the setting that opens a target, in BlockedTargetError messages */
  hint: BlockedHint;
  /** the resolver (node:dns lookup unless a test gives its own) */
  resolve?: typeof dnsLookup;
}

/**
 * A `fetch` with the http node's SSRF rules, for clients that take a fetch function (the AI SDK
 * providers): every address a host name resolves to is checked before connecting, and the
 * address actually connected to is checked again (DNS rebinding). The response body streams as
 * it arrives (nothing is buffered), and the request's `signal` aborts it at any point. Redirects
 * are not followed (a 3xx is answered as is), so a redirect cannot lead past the checks.
 */
export function guardedFetch(opts: GuardedFetchOptions): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`only http and https URLs can be fetched, not ${url.protocol}`);
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const allowedByName = opts.policy.hostAllowed(hostname);
    if (isIP(hostname) && !allowedByName) {
      const why = opts.policy.refusal(hostname);
      if (why) throw new BlockedTargetError(`target ${why}`, opts.hint);
    }
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const body = await bodyBytes(init?.body);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      const outgoing = client.request(url, { method, headers, agent: false, lookup: guardedLookup(opts.policy, hostname, opts.resolve ?? dnsLookup, opts.hint) });
      const onAbort = () => outgoing.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError'));
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.once('socket', (socket: Socket) => {
        socket.once('connect', () => {
          const why = allowedByName ? undefined : opts.policy.refusal(socket.remoteAddress ?? '');
          if (why) outgoing.destroy(new BlockedTargetError(`connected address ${why}`, opts.hint));
        });
      });
      outgoing.once('error', reject);
      outgoing.once('response', (res) => {
        res.once('close', () => signal?.removeEventListener('abort', onAbort));
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
        }
        const status = res.statusCode ?? 502;
        const empty = method === 'HEAD' || status === 204 || status === 304;
        if (empty) res.resume();
        const stream = empty ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      });
      outgoing.end(body);
    });
  }) as typeof fetch;
}

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  // FormData, Blob, streams: read them the way fetch would
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** What a base URL resolves to, checked like guardedFetch checks it (for a check on save): the refusal, or undefined. */
export async function baseUrlRefusal(rawUrl: string, policy: AddressPolicy, resolve: typeof dnsLookup = dnsLookup): Promise<string | undefined> {
  const url = new URL(rawUrl);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.hostAllowed(hostname)) return undefined;
  if (isIP(hostname)) return policy.refusal(hostname);
  const addresses = await new Promise<LookupAddress[]>((ok, fail) => resolve(hostname, { all: true }, (err, list) => (err ? fail(err) : ok(list as LookupAddress[]))));
  for (const a of addresses) {
    const why = policy.refusal(a.address);
    if (why) return `${hostname} resolves to ${why}`;
  }
  return undefined;
}
