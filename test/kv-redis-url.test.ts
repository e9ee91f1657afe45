import test from 'ava';
import { deriveRedisUrls, redactRedisUrl } from '../kernel/kv/redis-url.ts';

test('derives databases 0 to 3 from a URL without a database', (t) => {
  t.deepEqual(deriveRedisUrls('redis://127.0.0.1:6379'), {
    cache: 'redis://127.0.0.1:6379/0',
    fs: 'redis://127.0.0.1:6379/1',
    jobs: 'redis://127.0.0.1:6379/2',
    results: 'redis://127.0.0.1:6379/3',
  });
});

test('ignores the given database and keeps auth, host, port and query', (t) => {
  const urls = deriveRedisUrls('redis://app:s%40cret@cache.internal:6380/7?family=6');
  t.is(urls.cache, 'redis://app:s%40cret@cache.internal:6380/0?family=6');
  t.is(urls.fs, 'redis://app:s%40cret@cache.internal:6380/1?family=6');
  t.is(urls.jobs, 'redis://app:s%40cret@cache.internal:6380/2?family=6');
  t.is(urls.results, 'redis://app:s%40cret@cache.internal:6380/3?family=6');
});

test('keeps rediss://, a password-only login and an IPv6 host', (t) => {
  t.is(deriveRedisUrls('rediss://:pw@[::1]:6390/').jobs, 'rediss://:pw@[::1]:6390/2');
  t.is(deriveRedisUrls('rediss://redis.example.com').results, 'rediss://redis.example.com/3');
});

test('deriving is idempotent', (t) => {
  const once = deriveRedisUrls('redis://h:1/9');
  t.deepEqual(deriveRedisUrls(once.jobs), once);
});

test('rejects URLs that are not redis:// or rediss://', (t) => {
  t.throws(() => deriveRedisUrls('http://127.0.0.1:6379/0'), { message: /protocol must be redis:\/\/ or rediss:\/\/, got http:\/\// });
  t.throws(() => deriveRedisUrls('localhost:6379'), { message: /protocol must be redis:\/\/ or rediss:\/\/, got localhost:/ });
  t.throws(() => deriveRedisUrls('127.0.0.1:6379'), { message: /Invalid Redis URL '127\.0\.0\.1:6379'/ });
  t.throws(() => deriveRedisUrls('not a url'), { message: /Invalid Redis URL/ });
  t.throws(() => deriveRedisUrls(''), { message: /Invalid Redis URL/ });
  t.throws(() => deriveRedisUrls('redis:///0'), { message: /a host is required/ });
});

test('error messages and redaction never show the password', (t) => {
  const error = t.throws(() => deriveRedisUrls('http://user:hunter2@h:1/0'));
  t.notRegex(error!.message, /hunter2/);
  t.is(redactRedisUrl('redis://user:hunter2@h:1/0'), 'redis://user:***@h:1/0');
  t.is(redactRedisUrl('redis://h:1/0'), 'redis://h:1/0');
  t.notRegex(redactRedisUrl('bad url//user:hunter2@h'), /hunter2/);
});
