import test from 'ava';
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressPolicy } from '../kernel/net/address-policy.ts';
import { safeRequest, type SafeRequest } from '../kernel/net/safe-request.ts';

/** A DNS server under an attacker's control, as a resolver: it answers whatever the test says next. */
function rebindingResolver(answers: string[][]): { resolve: NonNullable<SafeRequest['resolve']>; queries: string[] } {
  const queries: string[] = [];
  const resolve = ((host: string, _opts: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) => {
    queries.push(host);
    const next = answers.shift() ?? ['127.0.0.1'];
    callback(null, next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as unknown as NonNullable<SafeRequest['resolve']>;
  return { resolve, queries };
}

const request = (url: string, resolve: SafeRequest['resolve'], allow: string[] = []) =>
  safeRequest({ method: 'GET', url, headers: {}, timeoutMs: 2000, maxBytes: 4096, maxRedirects: 5, policy: new AddressPolicy(allow), resolve });

test('a name is resolved and checked again on every request: an answer that flips to loopback is refused', async (t) => {
  const server = createServer((_req, res) => res.end('{"secret":true}')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  try {
    // the first answer is a harmless address the policy accepts (the operator opened it), the second is loopback
    const dns = rebindingResolver([['192.0.2.10'], ['127.0.0.1']]);
    const first = await request(`http://rebind.example:${port}/`, dns.resolve, ['192.0.2.10']).catch((err: Error) => err);
    t.false(first instanceof Error && /refuses/.test(first.message), 'the first answer passed the policy (the connection itself may fail here)');
    const second = await request(`http://rebind.example:${port}/`, dns.resolve, ['192.0.2.10']).catch((err: Error) => err);
    t.true(second instanceof Error);
    t.regex((second as Error).message, /rebind\.example resolves to 127\.0\.0\.1 is a loopback address/);
    t.deepEqual(dns.queries, ['rebind.example', 'rebind.example'], 'no verdict about the name was remembered');
  } finally {
    server.close();
  }
});

test('an answer mixing a public and a private address is refused, whichever comes first', async (t) => {
  for (const answer of [['93.184.216.34', '10.0.0.1'], ['10.0.0.1', '93.184.216.34']]) {
    const dns = rebindingResolver([answer]);
    const err = await request('http://mixed.example/', dns.resolve).catch((e: Error) => e);
    t.regex((err as Error).message, /mixed\.example resolves to 10\.0\.0\.1 is a private address/);
  }
});

test('the address connected to is the address that was checked', async (t) => {
  const server = createServer((_req, res) => res.setHeader('Content-Type', 'application/json').end('{"ok":true}')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  try {
    const dns = rebindingResolver([['127.0.0.1']]);
    const res = await request(`http://opened.example:${port}/`, dns.resolve, ['127.0.0.1/32']);
    t.is(res.remote_address, '127.0.0.1');
    t.deepEqual(res.body, { ok: true });
  } finally {
    server.close();
  }
});
