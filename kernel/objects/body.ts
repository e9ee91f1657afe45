import type { ObjectBody } from './types.ts';

export type InMemoryBody = Buffer | Uint8Array | string;

export function isInMemoryBody(body: ObjectBody): body is InMemoryBody {
  return typeof body === 'string' || body instanceof Uint8Array;
}

export function inMemoryToBuffer(body: InMemoryBody): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Yields the body as Buffers, pulling from a stream only as fast as the consumer asks. */
export async function* bodyChunks(body: ObjectBody): AsyncGenerator<Buffer> {
  if (isInMemoryBody(body)) {
    yield inMemoryToBuffer(body);
    return;
  }
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : inMemoryToBuffer(chunk);
  }
}
