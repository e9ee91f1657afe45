// The S3 driver against a real S3-compatible server (s3rver) started by this file
// on a free port, with its own temp directory.
import test from 'ava';
import { S3Client } from '@aws-sdk/client-s3';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { createObjectStore, type ObjectStore, type S3Options } from '../kernel/objects/index.ts';
import { MIN_PART_SIZE, uploadStream } from '../kernel/objects/s3-multipart.ts';
import { objectStoreContract } from './helpers/object-store-contract.ts';
import { startS3rver, type RunningS3rver } from './helpers/s3rver-server.ts';

let server: RunningS3rver;
let store: ObjectStore;
const opened: ObjectStore[] = [];

function s3Store(overrides: Partial<S3Options> = {}): ObjectStore {
  const created = createObjectStore({
    driver: 's3',
    s3: {
      endpoint: server.endpoint,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      bucket: 'objects-contract',
      ...overrides,
    },
  });
  opened.push(created);
  return created;
}

/** A port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

test.before(async () => {
  server = await startS3rver();
  store = s3Store({ createBucket: true });
  await store.check(); // creates the bucket the other stores of this file share
});

test.after.always(async () => {
  for (const each of opened) await each.close();
  await server?.close();
});

// s3rver lists keys in its directory's readdir order, not in UTF-8 byte order as
// AWS S3 does; the contract then still requires exactly the same keys and sizes.
objectStoreContract('s3', () => store, { listsInByteOrder: false });

test('s3: the driver reports its name; check() creates a missing bucket when asked to', async (t) => {
  const created = s3Store({ bucket: 'created-on-first-use', createBucket: true });
  t.is(created.driver, 's3');
  await t.notThrowsAsync(created.check());
  await created.put('x', 'y');
  // a second store without createBucket sees the bucket now exists
  t.deepEqual(await s3Store({ bucket: 'created-on-first-use' }).getBuffer('x'), Buffer.from('y'));
});

test('s3: check() against a missing bucket fails clearly and get throws rather than returning null', async (t) => {
  const missing = s3Store({ bucket: 'no-such-bucket-here' });
  const err = await t.throwsAsync(missing.check());
  t.regex(err!.message, /Object store check failed for S3 bucket "no-such-bucket-here" at http:\/\/127\.0\.0\.1:\d+/);
  t.regex(err!.message, /NoSuchBucket/);
  // a missing bucket is a configuration error, not a missing object
  const getErr = await t.throwsAsync(missing.get('some/key'));
  t.regex(getErr!.message, /NoSuchBucket/);
});

test('s3: check() against a port where nothing listens fails clearly', async (t) => {
  const endpoint = `http://127.0.0.1:${await closedPort()}`;
  const unreachable = s3Store({ endpoint, createBucket: true });
  const err = await t.throwsAsync(unreachable.check());
  t.true(err!.message.includes(`Object store check failed for S3 bucket "objects-contract" at ${endpoint}`), err!.message);
  t.regex(err!.message, /ECONNREFUSED/);
  const without = s3Store({ endpoint });
  const err2 = await t.throwsAsync(without.check());
  t.regex(err2!.message, /ECONNREFUSED/);
});

test('s3: an unknown access key makes check() fail with the server error', async (t) => {
  // s3rver 3.7 does not verify V4 signatures (a wrong secret is accepted), but it
  // does reject an access key id it does not know.
  const denied = s3Store({ accessKeyId: 'NOT-A-KEY', secretAccessKey: 'whatever' });
  const err = await t.throwsAsync(denied.check());
  t.regex(err!.message, /Object store check failed for S3 bucket "objects-contract"/);
  t.regex(err!.message, /InvalidAccessKeyId/);
});

test('s3: a failed multipart upload is aborted (s3rver cannot abort, and the error says so)', async (t) => {
  // s3rver 3.7 does not implement AbortMultipartUpload (DELETE ?uploadId answers
  // MethodNotAllowed). The driver still sends it and reports the failed abort next
  // to the original error; this pins that the abort is attempted.
  const source = (async function* () {
    yield Buffer.alloc(6 * 1024 * 1024, 7); // more than one 5 MiB part
    throw new Error('source stream broke on purpose');
  })();
  const err = await t.throwsAsync(store.put('aborted/upload', source));
  t.regex(err!.message, /source stream broke on purpose; aborting multipart upload \w+ also failed \(MethodNotAllowed/);
  t.is(await store.head('aborted/upload'), null);
});

test('s3: a streamed upload goes up in equal 5 MiB parts, a short stream as one PutObject', async (t) => {
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  t.teardown(() => client.destroy());
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const body = (args.input as { Body?: unknown }).Body;
      sent.push(Buffer.isBuffer(body) ? `${context.commandName} ${body.length}` : String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
  const target = { client, bucket: 'objects-contract', contentType: 'application/octet-stream', metadata: {}, partSize: MIN_PART_SIZE };
  const chunks = (total: number): Readable => Readable.from((function* () {
    for (let offset = 0; offset < total; offset += 1_000_003) yield Buffer.alloc(Math.min(1_000_003, total - offset), 1);
  })());

  const big = await uploadStream({ ...target, key: 'parts/big' }, chunks(12 * 1024 * 1024));
  t.is(big.size, 12 * 1024 * 1024);
  t.deepEqual(sent, [
    'CreateMultipartUploadCommand',
    `UploadPartCommand ${MIN_PART_SIZE}`,
    `UploadPartCommand ${MIN_PART_SIZE}`,
    `UploadPartCommand ${2 * 1024 * 1024}`,
    'CompleteMultipartUploadCommand',
  ]);
  sent.length = 0;
  const small = await uploadStream({ ...target, key: 'parts/small' }, chunks(3_000_000));
  t.is(small.size, 3_000_000);
  t.deepEqual(sent, ['PutObjectCommand 3000000']);
});

test('s3: options are validated when the store is created', (t) => {
  t.throws(() => s3Store({ bucket: '' }), { message: /bucket/ });
  t.throws(() => s3Store({ accessKeyId: 'only-one', secretAccessKey: undefined }), { message: /both accessKeyId and secretAccessKey/ });
  t.throws(() => s3Store({ partSize: 1024 }), { message: /partSize/ });
  t.throws(() => createObjectStore({ driver: 's3' }), { message: /needs s3 options/ });
});
