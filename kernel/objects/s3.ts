import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { bodyChunks, inMemoryToBuffer, isInMemoryBody } from './body.ts';
import { describeError } from './errors.ts';
import { DEFAULT_CONTENT_TYPE, assertValidKey, assertValidPrefix, normalizeContentType, normalizeMetadata } from './keys.ts';
import { runProbeRoundTrip } from './probe.ts';
import { MIN_PART_SIZE, uploadStream } from './s3-multipart.ts';
import type { ListedObject, ObjectBody, ObjectInfo, ObjectStore, PutOptions, PutResult, S3Options, StoredObject } from './types.ts';

interface SdkError {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

function statusOf(err: unknown): number | undefined {
  return (err as SdkError | null)?.$metadata?.httpStatusCode;
}

/** GetObject says NoSuchKey; HeadObject has no body, so a missing key (or bucket) is a bare 404 "NotFound". */
function isMissingKey(err: unknown): boolean {
  const name = (err as SdkError | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(err) === 404 && name !== 'NoSuchBucket');
}

/** In Node the SDK hands out an http.IncomingMessage, or a checksum-validating Readable around it. */
function toReadable(body: unknown): Readable {
  if (body === undefined) return Readable.from([]);
  if (body instanceof Readable) return body;
  if (typeof (body as AsyncIterable<Uint8Array> | null)?.[Symbol.asyncIterator] === 'function') {
    return Readable.from(body as AsyncIterable<Uint8Array>);
  }
  throw new Error(`Unexpected GetObject body type ${Object.prototype.toString.call(body)}`);
}

/** Objects in one bucket of AWS S3 or any S3-compatible server. */
export class S3ObjectStore implements ObjectStore {
  readonly driver = 's3' as const;
  readonly bucket: string;
  readonly #client: S3Client;
  readonly #where: string;
  readonly #createBucket: boolean;
  readonly #partSize: number;
  #bucketReady: Promise<void> | null = null;

  constructor(opts: S3Options) {
    if (!opts.bucket) throw new Error('The S3 object store needs a bucket name (bucket)');
    if (Boolean(opts.accessKeyId) !== Boolean(opts.secretAccessKey)) {
      throw new Error('The S3 object store needs both accessKeyId and secretAccessKey, or neither (to use the default AWS credential chain)');
    }
    const partSize = opts.partSize ?? MIN_PART_SIZE;
    if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE) {
      throw new Error(`S3 partSize must be an integer of at least ${MIN_PART_SIZE} bytes (5 MiB), got ${opts.partSize}`);
    }
    this.bucket = opts.bucket;
    this.#partSize = partSize;
    this.#createBucket = opts.createBucket ?? false;
    this.#where = `S3 bucket ${JSON.stringify(opts.bucket)} at ${opts.endpoint ?? 'AWS'}`;
    this.#client = new S3Client({
      endpoint: opts.endpoint,
      region: opts.region ?? 'us-east-1',
      forcePathStyle: opts.forcePathStyle ?? true,
      credentials:
        opts.accessKeyId && opts.secretAccessKey ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } : undefined,
    });
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<PutResult> {
    assertValidKey(key);
    const contentType = normalizeContentType(opts.contentType);
    const metadata = normalizeMetadata(opts.metadata);
    await this.#ensureBucket();
    try {
      if (isInMemoryBody(body)) {
        const bytes = inMemoryToBuffer(body);
        const put = await this.#client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length, ContentType: contentType, Metadata: metadata }),
        );
        return { key, size: bytes.length, etag: put.ETag };
      }
      const uploaded = await uploadStream(
        { client: this.#client, bucket: this.bucket, key, contentType, metadata, partSize: this.#partSize },
        bodyChunks(body),
      );
      return { key, ...uploaded };
    } catch (err) {
      throw this.#failure('put', key, err);
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    assertValidKey(key);
    await this.#ensureBucket();
    try {
      const got = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = toReadable(got.Body);
      return { body, size: got.ContentLength ?? 0, contentType: got.ContentType || DEFAULT_CONTENT_TYPE, metadata: got.Metadata ?? {} };
    } catch (err) {
      if (isMissingKey(err)) return null;
      throw this.#failure('get', key, err);
    }
  }

  async getBuffer(key: string): Promise<Buffer | null> {
    const object = await this.get(key);
    return object ? buffer(object.body) : null;
  }

  async head(key: string): Promise<ObjectInfo | null> {
    assertValidKey(key);
    await this.#ensureBucket();
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType || DEFAULT_CONTENT_TYPE, metadata: head.Metadata ?? {} };
    } catch (err) {
      if (isMissingKey(err)) return null;
      throw this.#failure('head', key, err);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.#ensureBucket();
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      throw this.#failure('delete', key, err);
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    assertValidPrefix(prefix);
    await this.#ensureBucket();
    const pages = paginateListObjectsV2({ client: this.#client }, { Bucket: this.bucket, Prefix: prefix || undefined });
    try {
      for await (const page of pages) {
        for (const entry of page.Contents ?? []) {
          if (entry.Key !== undefined) yield { key: entry.Key, size: entry.Size ?? 0 };
        }
      }
    } catch (err) {
      throw new Error(`S3 list of prefix ${JSON.stringify(prefix)} in ${this.#where} failed: ${describeError(err)}`, { cause: err });
    }
  }

  async check(): Promise<void> {
    try {
      await this.#ensureBucket();
    } catch (err) {
      throw new Error(`Object store check failed for ${this.#where}: ${describeError(err)}`, { cause: err });
    }
    await runProbeRoundTrip(this, this.#where);
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  #failure(operation: string, key: string, err: unknown): Error {
    return new Error(`S3 ${operation} of ${JSON.stringify(key)} in ${this.#where} failed: ${describeError(err)}`, { cause: err });
  }

  /** With `createBucket`, makes sure the bucket exists before the first operation. */
  async #ensureBucket(): Promise<void> {
    if (!this.#createBucket) return;
    this.#bucketReady ??= this.#createBucketIfMissing().catch((err: unknown) => {
      this.#bucketReady = null; // let a later call retry
      throw new Error(`Cannot create ${this.#where}: ${describeError(err)}`, { cause: err });
    });
    return this.#bucketReady;
  }

  async #createBucketIfMissing(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
    try {
      await this.#client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const name = (err as SdkError | null)?.name;
      if (name !== 'BucketAlreadyOwnedByYou') throw err; // another process created it first: fine
    }
  }
}
