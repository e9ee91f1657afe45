import type { Readable } from 'node:stream';

/**
 * What `put` accepts. Streams and async iterables are consumed chunk by chunk
 * and never buffered whole: the local driver writes them straight to disk, the
 * S3 driver holds at most one multipart part in memory.
 */
export type ObjectBody = Buffer | Uint8Array | string | NodeJS.ReadableStream | AsyncIterable<Uint8Array>;

export interface PutOptions {
  /** Defaults to `application/octet-stream`. */
  contentType?: string;
  /**
   * User metadata. Keys are case-insensitive (stored lower-cased, as S3 does) and
   * must be HTTP token characters; values must be printable ASCII. At most 2 KiB in total.
   */
  metadata?: Record<string, string>;
}

export interface PutResult {
  key: string;
  /** Bytes stored. */
  size: number;
  /** Opaque version tag of the stored content (not comparable across drivers). */
  etag?: string;
}

export interface ObjectInfo {
  size: number;
  contentType: string;
  metadata: Record<string, string>;
}

export interface StoredObject extends ObjectInfo {
  body: Readable;
}

export interface ListedObject {
  key: string;
  size: number;
}

/**
 * A flat key -> bytes store. Keys are `/`-separated, relative, and never contain
 * empty, `.` or `..` segments, NUL or backslashes; both drivers reject such keys
 * so a key valid on one driver is valid on the other.
 */
export interface ObjectStore {
  readonly driver: 's3' | 'local';
  /** Creates or replaces `key`; the new content becomes visible all at once. */
  put(key: string, body: ObjectBody, opts?: PutOptions): Promise<PutResult>;
  /** `null` when the key does not exist. The caller must consume or destroy `body`. */
  get(key: string): Promise<StoredObject | null>;
  getBuffer(key: string): Promise<Buffer | null>;
  head(key: string): Promise<ObjectInfo | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Every key starting with `prefix` (a plain string prefix, not a folder). AWS S3 and
   * the local driver return them in UTF-8 byte order; some S3-compatible servers
   * (s3rver among them) do not, so callers needing an order must sort.
   */
  list(prefix: string): AsyncIterable<ListedObject>;
  /** A real put/get/delete round trip of a probe object; throws a descriptive Error on failure. */
  check(): Promise<void>;
  close(): Promise<void>;
}

export interface LocalDiskOptions {
  /** Root directory; created (with parents) on first use. */
  dir: string;
}

export interface S3Options {
  /** For S3-compatible servers, e.g. `http://127.0.0.1:9000`. Omit for AWS. */
  endpoint?: string;
  /** Defaults to `us-east-1`. */
  region?: string;
  bucket: string;
  /** Both keys or neither; without them the SDK's default credential chain applies. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addressing (`endpoint/bucket/key`); defaults to true. */
  forcePathStyle?: boolean;
  /** Create the bucket on first use when it does not exist. Defaults to false. */
  createBucket?: boolean;
  /** Multipart part size for streamed uploads, at least 5 MiB (the default). */
  partSize?: number;
}

export interface CreateObjectStoreOptions {
  driver: 's3' | 'local';
  /** Required for the local driver. */
  dir?: string;
  /** Required for the s3 driver. */
  s3?: S3Options;
}
