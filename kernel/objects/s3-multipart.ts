// Streams a body of unknown length to S3 with at most one part in memory.
// (`@aws-sdk/lib-storage` would do this, but it is not a dependency here.)
// A body that ends within the first part goes up as a single PutObject.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describeError } from './errors.ts';

export const MIN_PART_SIZE = 5 * 1024 * 1024; // S3's minimum for every part but the last
const MAX_PARTS = 10_000; // S3's maximum part number

export interface StreamUploadTarget {
  client: S3Client;
  bucket: string;
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  /** Every part except the last has exactly this many bytes (some S3-compatible servers require equal parts). */
  partSize: number;
}

export interface StreamUploadResult {
  size: number;
  etag?: string;
}

/** Cuts a chunk stream into parts of exactly `partSize` bytes (the last may be shorter). */
class PartReader {
  readonly #chunks: AsyncIterator<Buffer>;
  readonly #partSize: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #ended = false;

  constructor(chunks: AsyncIterable<Buffer>, partSize: number) {
    this.#chunks = chunks[Symbol.asyncIterator]();
    this.#partSize = partSize;
  }

  /** True once the source has ended and every byte has been handed out. */
  get exhausted(): boolean {
    return this.#ended && this.#pendingBytes === 0;
  }

  async next(): Promise<Buffer> {
    while (!this.#ended && this.#pendingBytes < this.#partSize) {
      const step = await this.#chunks.next();
      if (step.done) this.#ended = true;
      else if (step.value.length > 0) {
        this.#pending.push(step.value);
        this.#pendingBytes += step.value.length;
      }
    }
    const all = this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending, this.#pendingBytes);
    const part = all.subarray(0, Math.min(this.#partSize, all.length));
    const rest = all.subarray(part.length);
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingBytes = rest.length;
    return part;
  }

  /** Stops reading the source (destroys a stream source). */
  async cancel(): Promise<void> {
    await this.#chunks.return?.();
  }
}

export async function uploadStream(target: StreamUploadTarget, chunks: AsyncIterable<Buffer>): Promise<StreamUploadResult> {
  const { client, bucket, key, contentType, metadata, partSize } = target;
  const reader = new PartReader(chunks, partSize);
  let first: Buffer;
  try {
    first = await reader.next();
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  if (reader.exhausted) {
    const put = await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: first, ContentLength: first.length, ContentType: contentType, Metadata: metadata }),
    );
    return { size: first.length, etag: put.ETag };
  }

  const created = await client.send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType, Metadata: metadata }),
  );
  const uploadId = created.UploadId;
  if (!uploadId) throw new Error('CreateMultipartUpload returned no UploadId');
  const parts: CompletedPart[] = [];
  let size = 0;
  try {
    for (let part = first; part.length > 0; part = await reader.next()) {
      const partNumber = parts.length + 1;
      if (partNumber > MAX_PARTS) {
        throw new Error(`the body needs more than ${MAX_PARTS} parts of ${partSize} bytes; configure a larger partSize`);
      }
      const uploaded = await client.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: part, ContentLength: part.length }),
      );
      parts.push({ PartNumber: partNumber, ETag: uploaded.ETag });
      size += part.length;
    }
    const completed = await client.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
    return { size, etag: completed.ETag };
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    } catch (abortErr) {
      throw new Error(
        `${describeError(err)}; aborting multipart upload ${uploadId} also failed (${describeError(abortErr)}), ` +
          'so its parts stay in the bucket until a lifecycle rule removes them',
        { cause: err },
      );
    }
    throw err;
  }
}
