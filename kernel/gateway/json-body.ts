import type { IncomingMessage } from 'node:http';

/** An error shaped as body-parser's (`status`, `type`), so problem.ts maps both alike. */
class BodyError extends Error {
  constructor(message: string, readonly status: number, readonly type: string) {
    super(message);
  }
}

type Done = (err: BodyError | null, body?: unknown) => void;

/**
 * Reads a JSON request body exactly as `body-parser.json({ strict: false, limit })` does for
 * the common case: no Content-Encoding and a UTF-8 (or absent) charset. Returns false, having
 * read nothing, for any other request (compressed, another charset): body-parser takes those.
 *
 * Its answers are body-parser's: an empty body is `{}`, a leading BOM is dropped, a declared or
 * received length over the limit is 413 `entity.too.large`, unparsable text is 400
 * `entity.parse.failed`, a client that goes away is 400 `request.aborted`; on an error the rest
 * of the body is read and dropped before `done` is called, so the answer does not race the upload.
 * body-parser's generic path (charset lookup, raw-body's stream machinery, iconv) was a tenth of
 * a small webhook request's CPU.
 */
export function readJsonBody(req: IncomingMessage, limit: number, done: Done): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  if (!isUtf8Charset(req.headers['content-type'])) return false;
  new JsonBodyRead(req, limit, done).start();
  return true;
}

/** true for no charset parameter or charset=utf-8 (any case, optionally quoted). */
function isUtf8Charset(contentType: string | undefined): boolean {
  if (contentType === undefined || !contentType.includes(';')) return true;
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType);
  return match === null || match[1].toLowerCase() === 'utf-8';
}

class JsonBodyRead {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private finished = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly done: Done,
  ) {}

  start(): void {
    const declared = this.req.headers['content-length'];
    if (declared !== undefined && Number(declared) > this.limit) return this.fail(tooLarge);
    this.req.on('data', (chunk: Buffer) => this.data(chunk));
    this.req.on('end', () => this.end());
    this.req.on('error', () => this.fail(aborted));
    this.req.on('close', () => this.fail(aborted));
  }

  private data(chunk: Buffer): void {
    if (this.finished) return;
    this.size += chunk.length;
    if (this.size > this.limit) return this.fail(tooLarge);
    this.chunks.push(chunk);
  }

  private end(): void {
    if (this.finished) return;
    this.finished = true;
    const raw = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    let text = raw.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0) return this.done(null, {});
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return this.done(new BodyError((err as Error).message, 400, 'entity.parse.failed'));
    }
    this.done(null, body);
  }

  /** answers once the request has been read to its end (or has gone), as body-parser does */
  private fail(make: (limit: number) => BodyError): void {
    if (this.finished) return; // 'close' follows every request: no error is made for it
    this.finished = true;
    const err = make(this.limit);
    this.chunks.length = 0;
    if (this.req.readableEnded || this.req.destroyed) return this.done(err);
    this.req.on('end', () => this.done(err));
    this.req.on('close', () => this.req.readableEnded || this.done(err));
    this.req.resume();
  }
}

function aborted(): BodyError {
  return new BodyError('request aborted', 400, 'request.aborted');
}

function tooLarge(limit: number): BodyError {
  return new BodyError(`request entity too large (limit ${limit} bytes)`, 413, 'entity.too.large');
}
