// The behaviour every ObjectStore driver must show. A test file opens a store in
// `test.before`, then calls `objectStoreContract` with a getter for it. Every test
// works under its own random prefix, so the tests of one file run concurrently.
import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import type { ObjectStore } from '../../kernel/objects/index.ts';

export interface ContractOptions {
  /**
   * Whether `list` returns keys in UTF-8 byte order. AWS S3 and the local driver do;
   * s3rver does not (it walks its directory in readdir order). When false, the
   * listing tests still require exactly the same keys and sizes, compared sorted.
   */
  listsInByteOrder: boolean;
}

const MiB = 1024 * 1024;

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `total` pseudo-random bytes in irregular chunks, as a stream of unknown length; `digest()` is valid once consumed. */
function generatedStream(total: number, failAfter?: number): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let state = 0x9e3779b9;
  async function* chunks(): AsyncGenerator<Buffer> {
    let sent = 0;
    while (sent < total) {
      if (failAfter !== undefined && sent >= failAfter) throw new Error('source stream broke on purpose');
      const chunk = Buffer.allocUnsafe(Math.min(65_537, total - sent));
      for (let i = 0; i < chunk.length; i++) {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        chunk[i] = state >>> 24;
      }
      hash.update(chunk);
      sent += chunk.length;
      yield chunk;
    }
  }
  return { stream: Readable.from(chunks()), digest: () => hash.digest('hex') };
}

async function listAll(store: ObjectStore, prefix: string): Promise<Array<{ key: string; size: number }>> {
  const out: Array<{ key: string; size: number }> = [];
  for await (const entry of store.list(prefix)) out.push({ key: entry.key, size: entry.size });
  return out;
}

const BAD_KEYS = ['', '/absolute', 'a/../b', '..', './a', 'a\\b', 'a\u0000b', 'a//b', 'trailing/', 'tab\there'];

export function objectStoreContract(name: string, getStore: () => ObjectStore, options: ContractOptions): void {
  const fresh = (): string => `contract-${randomUUID()}/`;

  test(`${name}: put then get/getBuffer/head return the bytes, size and defaults`, async (t) => {
    const store = getStore();
    const p = fresh();
    const bodies: Array<[string, string | Buffer | Uint8Array, Buffer]> = [
      [`${p}string.txt`, 'héllo wörld', Buffer.from('héllo wörld')],
      [`${p}buffer.bin`, Buffer.from([0, 1, 2, 255]), Buffer.from([0, 1, 2, 255])],
      [`${p}uint8.bin`, new Uint8Array([9, 8, 7]), Buffer.from([9, 8, 7])],
      [`${p}empty`, '', Buffer.alloc(0)],
    ];
    for (const [key, body, expected] of bodies) {
      const put = await store.put(key, body);
      t.is(put.key, key);
      t.is(put.size, expected.length, key);
      t.is(typeof put.etag, 'string');
      t.deepEqual(await store.getBuffer(key), expected, key);
      const got = await store.get(key);
      t.truthy(got, key);
      t.deepEqual(await buffer(got!.body), expected, key);
      t.is(got!.size, expected.length);
      t.is(got!.contentType, 'application/octet-stream');
      t.deepEqual(got!.metadata, {});
      t.deepEqual(await store.head(key), { size: expected.length, contentType: 'application/octet-stream', metadata: {} });
    }
  });

  test(`${name}: content type and metadata round trip, metadata keys lower-cased`, async (t) => {
    const store = getStore();
    const key = `${fresh()}dir/with space/ünïcödé €.txt`;
    await store.put(key, 'x', { contentType: 'text/plain; charset=utf-8', metadata: { Owner: 'alice', 'trace-id': 'abc-123', n: '' } });
    const expected = { size: 1, contentType: 'text/plain; charset=utf-8', metadata: { owner: 'alice', 'trace-id': 'abc-123', n: '' } };
    t.deepEqual(await store.head(key), expected);
    const got = await store.get(key);
    got!.body.resume();
    t.deepEqual({ size: got!.size, contentType: got!.contentType, metadata: got!.metadata }, expected);
  });

  test(`${name}: overwriting replaces content, type and metadata`, async (t) => {
    const store = getStore();
    const key = `${fresh()}doc`;
    await store.put(key, 'first version', { contentType: 'text/plain', metadata: { a: '1' } });
    await store.put(key, Buffer.from('2nd'), { contentType: 'application/json', metadata: { b: '2' } });
    t.deepEqual(await store.getBuffer(key), Buffer.from('2nd'));
    t.deepEqual(await store.head(key), { size: 3, contentType: 'application/json', metadata: { b: '2' } });
    t.deepEqual(await listAll(store, key), [{ key, size: 3 }]);
  });

  test(`${name}: delete removes the object and is idempotent`, async (t) => {
    const store = getStore();
    const p = fresh();
    await store.put(`${p}gone`, 'bye');
    await store.put(`${p}kept`, 'stay');
    await store.delete(`${p}gone`);
    t.is(await store.get(`${p}gone`), null);
    t.is(await store.getBuffer(`${p}gone`), null);
    t.is(await store.head(`${p}gone`), null);
    await t.notThrowsAsync(store.delete(`${p}gone`));
    await t.notThrowsAsync(store.delete(`${p}never/existed`));
    t.deepEqual(await listAll(store, p), [{ key: `${p}kept`, size: 4 }]);
  });

  test(`${name}: a missing key gives null from get, getBuffer and head`, async (t) => {
    const store = getStore();
    const key = `${fresh()}missing/key.txt`;
    t.is(await store.get(key), null);
    t.is(await store.getBuffer(key), null);
    t.is(await store.head(key), null);
  });

  test(`${name}: list matches a plain string prefix, with sizes`, async (t) => {
    const store = getStore();
    const p = fresh();
    // `b` and `b/c` both exist: a key may also be a "folder" of other keys, as on S3.
    const keys = ['b', 'b/c', 'b-x', 'bc/d', 'a.txt', 'z/deep/er/key', 'ü/x', 'b/c/d/e'].map((k) => p + k);
    await Promise.all(keys.map((key, i) => store.put(key, Buffer.alloc(i + 1, 1))));
    const sizeOf = (key: string): number => keys.indexOf(key) + 1;
    const expect = (prefix: string): Array<{ key: string; size: number }> =>
      keys.filter((k) => k.startsWith(prefix)).sort(byteOrder).map((key) => ({ key, size: sizeOf(key) }));
    for (const prefix of [p, `${p}b`, `${p}b/`, `${p}z/de`, `${p}ü`, p.slice(0, -1)]) {
      let listed = await listAll(store, prefix);
      if (!options.listsInByteOrder) listed = listed.sort((x, y) => byteOrder(x.key, y.key));
      t.deepEqual(listed, expect(prefix), `prefix ${prefix}`);
    }
    // byte order spelled out: '-' (0x2d) < '/' (0x2f) < 'c' < 'ü' (0xc3 0xbc)
    t.deepEqual(
      expect(`${p}b`).map((e) => e.key.slice(p.length)),
      ['b', 'b-x', 'b/c', 'b/c/d/e', 'bc/d'],
    );
    t.deepEqual(await listAll(store, `${p}nothing-here`), []);
    t.deepEqual(await listAll(store, `${p}zz/`), []);
    await store.delete(`${p}b`);
    t.deepEqual((await listAll(store, `${p}b/`)).map((e) => e.key).sort(byteOrder), [`${p}b/c`, `${p}b/c/d/e`]);
  });

  test(`${name}: a 12 MiB stream of unknown length is stored and read back intact`, async (t) => {
    const store = getStore();
    const key = `${fresh()}big/stream.bin`;
    const source = generatedStream(12 * MiB + 3);
    const put = await store.put(key, source.stream, { contentType: 'application/x-test', metadata: { kind: 'stream' } });
    const expectedDigest = source.digest();
    t.is(put.size, 12 * MiB + 3);
    t.deepEqual(await store.head(key), { size: 12 * MiB + 3, contentType: 'application/x-test', metadata: { kind: 'stream' } });
    const got = await store.get(key);
    const streamedHash = createHash('sha256');
    for await (const chunk of got!.body) streamedHash.update(chunk as Buffer);
    t.is(streamedHash.digest('hex'), expectedDigest);
    t.is(sha256((await store.getBuffer(key))!), expectedDigest);
    t.deepEqual(await listAll(store, key), [{ key, size: 12 * MiB + 3 }]);
  });

  test(`${name}: small, empty and async-iterable streams are stored`, async (t) => {
    const store = getStore();
    const p = fresh();
    const small = generatedStream(100_000);
    t.is((await store.put(`${p}small`, small.stream)).size, 100_000);
    t.is(sha256((await store.getBuffer(`${p}small`))!), small.digest());
    t.is((await store.put(`${p}empty`, Readable.from([]))).size, 0);
    t.deepEqual(await store.getBuffer(`${p}empty`), Buffer.alloc(0));
    async function* pieces(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array([1, 2]);
      yield Buffer.from('xyz');
    }
    t.is((await store.put(`${p}iterable`, pieces())).size, 5);
    t.deepEqual(await store.getBuffer(`${p}iterable`), Buffer.from([1, 2, 120, 121, 122]));
  });

  test(`${name}: a stream that fails mid-upload rejects and leaves the previous object intact`, async (t) => {
    const store = getStore();
    const p = fresh();
    await store.put(`${p}existing`, 'old content', { metadata: { v: '1' } });
    for (const key of [`${p}existing`, `${p}new`]) {
      // fails after 6 MiB: past the first 5 MiB part of an S3 multipart upload
      const source = generatedStream(8 * MiB, 6 * MiB);
      const err = await t.throwsAsync(store.put(key, source.stream));
      t.regex(err!.message, /source stream broke on purpose/);
    }
    t.deepEqual(await store.getBuffer(`${p}existing`), Buffer.from('old content'));
    t.deepEqual(await store.head(`${p}existing`), { size: 11, contentType: 'application/octet-stream', metadata: { v: '1' } });
    t.is(await store.head(`${p}new`), null);
    t.deepEqual(await listAll(store, p), [{ key: `${p}existing`, size: 11 }]);
  });

  test(`${name}: concurrent puts to one key leave exactly one complete version`, async (t) => {
    const store = getStore();
    const key = `${fresh()}contended`;
    const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(1000 + i, i));
    await Promise.all(versions.map((body, i) => store.put(key, body, { metadata: { version: String(i) } })));
    const final = await store.getBuffer(key);
    const head = await store.head(key);
    const index = Number(head!.metadata.version);
    t.deepEqual(final, versions[index]);
    t.is(head!.size, versions[index].length);
    t.deepEqual(await listAll(store, key), [{ key, size: versions[index].length }]);
  });

  test(`${name}: bad keys are rejected by every operation, naming the key`, async (t) => {
    const store = getStore();
    for (const key of BAD_KEYS) {
      const named = JSON.stringify(key);
      for (const attempt of [
        () => store.put(key, 'x'),
        () => store.get(key),
        () => store.getBuffer(key),
        () => store.head(key),
        () => store.delete(key),
      ]) {
        const err = await t.throwsAsync(attempt());
        t.true(err!.message.includes(named), `${err!.message} should name ${named}`);
        t.true(ERRORS.BAD_REQUEST.is(err), 'a BAD_REQUEST kernel error (400 at the gateway)');
      }
    }
    const err = await t.throwsAsync(listAll(store, 'a\\b'));
    t.regex(err!.message, /prefix/);
    t.true(ERRORS.BAD_REQUEST.is(err));
  });

  test(`${name}: metadata that S3 could not carry unchanged is rejected`, async (t) => {
    const store = getStore();
    const key = `${fresh()}meta`;
    const rejected: Array<Record<string, string>> = [
      { 'bad key': 'x' },
      { ok: 'ünï' },
      { ok: ' padded' },
      { a: 'x', A: 'y' },
      { big: 'x'.repeat(3000) },
    ];
    for (const metadata of rejected) {
      const err = await t.throwsAsync(store.put(key, 'x', { metadata }), { message: /metadata/i }, JSON.stringify(metadata));
      t.true(ERRORS.BAD_REQUEST.is(err));
    }
    t.is(await store.head(key), null);
  });

  test(`${name}: check() does a round trip and leaves no probe behind`, async (t) => {
    const store = getStore();
    await t.notThrowsAsync(store.check());
    t.deepEqual(await listAll(store, '_probe/'), []);
  });
}
