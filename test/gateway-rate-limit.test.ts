import test from 'ava';
import { join } from 'node:path';
import { useKernel, api } from './helpers/kernel.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const fixture = useKernel(test, { label: 'gateway_rate', roots: [FIXTURES], env: { RATE_LIMIT_PER_MINUTE: '5' } });

test('429 with Retry-After once a client passes the limit', async (t) => {
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 7; i++) {
    last = await api(fixture.kernel.apiUrl, '/api/v1/greeter/open');
    statuses.push(last.status);
  }
  t.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
  t.is(last!.status, 429);
  t.is(last!.body.code, 'RATE_LIMITED');
  t.regex(last!.headers.get('content-type') ?? '', /problem\+json/);
  t.true(Number(last!.headers.get('retry-after')) >= 1);
});
