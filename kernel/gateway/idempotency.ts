import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';
import { keyScopeOf, type KeyScope } from '../idempotency/declaration.ts';
import { idempotencyKeyOf } from '../idempotency/header.ts';
import type { IdempotencyStore, StoredResponse } from '../idempotency/store.ts';
import type { ActionDocKeys } from '../openapi/types.ts';

type Action = Pick<ActionDocKeys, 'auth' | 'idempotency' | 'response'> & { name?: string };
type Meta = { user?: { entity_id?: string } | null; $statusCode?: number; $location?: string; $responseType?: string };

/** A claimed key, on the request while it runs. */
interface HeldKey {
  keep(meta: Meta, data: unknown): void;
  release(): Promise<void>;
}

type KeyedRequest = IncomingMessage & { $idempotencyKey?: HeldKey; body?: unknown; originalUrl?: string };

/** Thrown instead of calling the action: the key's first response, which `failRequest` writes back. */
export class IdempotentReplay extends Error {
  constructor(readonly response: StoredResponse) {
    super('replayed the first response of this Idempotency-Key');
  }
}

/**
 * The Idempotency-Key rule, enforced once for every route (IETF HTTPAPI draft): after
 * authentication, a route that takes keys (declaration.ts) claims the request's key; the same
 * key and request again replays the first response with `Idempotent-Replayed: true`, another
 * request under that key is a 422, and one while the first still runs a 409. An error frees the
 * key. The answer is kept once the route's onAfterCall has its status and Location; that write
 * goes out beside the response rather than before it (the action's effect is committed either
 * way, so waiting would only add a round trip to every keyed call): a duplicate reaching this
 * node meanwhile waits for it and is replayed, one reaching another node in that moment gets
 * the retryable 409.
 */
export class IdempotencyGate {
  /** answers being kept, by scope and key */
  private readonly keeping = new Map<string, Promise<void>>();

  constructor(
    private readonly store: IdempotencyStore,
    private readonly onKeepFailed: (err: unknown) => void,
  ) {}

  async enter(req: IncomingMessage, action: Action, meta: Meta, params: Record<string, unknown>, multipart: boolean): Promise<void> {
    const declared = keyScopeOf(action, req.method ?? 'GET');
    if (!declared) return;
    const key = idempotencyKeyOf(req.headers['idempotency-key']);
    if (key === undefined) return;
    const scope = scopeOf(declared, meta, params, action.name ?? '');
    if (scope === undefined) return;
    const id = `${scope}\n${key}`;
    const fingerprint = fingerprintOf(req as KeyedRequest, multipart);
    let claim = await this.store.claim(scope, key, fingerprint);
    const keeping = this.keeping.get(id);
    if (claim.outcome === 'in_flight' && keeping) {
      await keeping;
      claim = await this.store.claim(scope, key, fingerprint);
    }
    if (claim.outcome === 'in_flight') throw ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT('A request with this Idempotency-Key is still being processed; retry once it has answered.');
    if (claim.outcome === 'mismatch') throw ERRORS.IDEMPOTENCY_KEY_REUSED('This Idempotency-Key was used for another request (method, path or body differ); use a new key.');
    if (claim.outcome === 'replay') throw new IdempotentReplay(claim.response);
    const { store } = this;
    const { claimId } = claim;
    let settled = false;
    (req as KeyedRequest).$idempotencyKey = {
      keep: (meta, data) => {
        if (settled) return;
        settled = true;
        const response = storableResponse(meta, data);
        const write = response ? store.complete(scope, key, claimId, response).then(() => undefined) : store.release(scope, key, claimId);
        const kept = write.catch(this.onKeepFailed).finally(() => this.keeping.delete(id));
        this.keeping.set(id, kept);
      },
      async release() {
        if (settled) return;
        settled = true;
        await store.release(scope, key, claimId);
      },
    };
  }
}

/** Keeps the answer of the request's key, if it holds one (the route's onAfterCall). */
export function keepAnswer(req: IncomingMessage, meta: Meta, data: unknown): void {
  (req as KeyedRequest).$idempotencyKey?.keep(meta, data);
}

/** Frees the request's key, if it holds one (a failed request). */
export function releaseKey(req: IncomingMessage): Promise<void> | undefined {
  return (req as KeyedRequest).$idempotencyKey?.release();
}

/** Writes a kept response again. */
export function writeReplay(res: ServerResponse, response: StoredResponse, requestId: string | undefined): void {
  const headers: Record<string, string | number> = { 'Idempotent-Replayed': 'true', 'Cache-Control': 'no-store', 'Content-Length': response.body?.length ?? 0 };
  if (response.contentType) headers['Content-Type'] = response.contentType;
  if (response.location) headers.Location = response.location;
  if (requestId) headers['X-Request-Id'] = requestId;
  res.writeHead(response.status, headers);
  res.end(response.body ?? undefined);
}

function scopeOf(declared: KeyScope, meta: Meta, params: Record<string, unknown>, action: string): string | undefined {
  if (declared.by === 'entity') return meta.user?.entity_id ? `entity:${meta.user.entity_id}` : undefined;
  const value = params[declared.param];
  // the parameter is a secret (a webhook token): keep only its hash
  return typeof value === 'string' && value ? `${action}:${sha256(value)}` : undefined;
}

/**
 * What makes two requests "the same": method, target and body. A JSON body is compared as
 * parsed (spacing does not matter); an upload, whose body is streamed to the action and never
 * held, by its encoded form's type (with its boundary) and length.
 */
function fingerprintOf(req: KeyedRequest, multipart: boolean): string {
  const target = `${req.method} ${req.originalUrl ?? req.url}\n`;
  const body = multipart ? `${req.headers['content-type']}\n${req.headers['content-length'] ?? ''}` : JSON.stringify(req.body ?? null);
  return sha256(target + body);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The response as moleculer-web's sendResponse will write it; undefined for a stream, which is not kept. */
function storableResponse(meta: Meta, data: unknown): StoredResponse | undefined {
  const status = meta.$statusCode ?? 200;
  const location = meta.$location ?? null;
  if (data === null || data === undefined) return { status, location, contentType: null, body: null };
  if (Buffer.isBuffer(data)) return { status, location, contentType: meta.$responseType ?? 'application/octet-stream', body: data };
  // a Buffer that crossed the transporter as JSON, as sendResponse reads it
  if ((data as { type?: unknown }).type === 'Buffer') return { status, location, contentType: meta.$responseType ?? 'application/octet-stream', body: Buffer.from(data as never) };
  if (typeof (data as { pipe?: unknown }).pipe === 'function') return undefined;
  if (meta.$responseType && typeof data !== 'object') return { status, location, contentType: meta.$responseType, body: Buffer.from(String(data)) };
  return { status, location, contentType: meta.$responseType ?? 'application/json; charset=utf-8', body: Buffer.from(JSON.stringify(data)) };
}
