import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';
import { keyScopeOf, type KeyScope } from '../idempotency/declaration.ts';
import { idempotencyKeyOf } from '../idempotency/header.ts';
import { claimTaken, keptAnswerOf, KEPT_ANSWER_TYPE, offerClaim, type InlineClaim, type KeptAnswer } from '../idempotency/inline.ts';
import type { RoutedRequest } from './location.ts';
import type { Claim, IdempotencyStore, StoredResponse } from '../idempotency/store.ts';
import type { ActionDocKeys } from '../openapi/types.ts';

type Action = Pick<ActionDocKeys, 'auth' | 'idempotency' | 'response' | 'location'> & { name?: string };
type Meta = { user?: { entity_id?: string } | null; $statusCode?: number; $location?: string; $responseType?: string };

/** A claimed key, on the request while it runs. */
interface HeldKey {
  keep(meta: Meta, data: unknown): void;
  release(): Promise<void>;
  /** an inline claim the action's write did not get: reads the key and throws what to answer */
  resolveLost?(): Promise<never>;
}

type KeyedRequest = IncomingMessage & RoutedRequest & { $idempotencyKey?: HeldKey; body?: unknown };

/** The `Location` a route derives from an answer with this status (null: none). */
export type LocationOf = (req: RoutedRequest, status: number, data: unknown) => string | null;

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
  /** actions declaring an inline claim whose write did not take one: claimed before they run from then on */
  private readonly untaken = new Set<string>();

  constructor(
    private readonly store: IdempotencyStore,
    private readonly onKeepFailed: (err: unknown) => void,
    private readonly locationOf: LocationOf = () => null,
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
    if (declared.by === 'entity' && declared.inline && !this.untaken.has(action.name ?? '')) return this.offerInline(req as KeyedRequest, action, meta, { action: action.name ?? '', scope, key, fingerprint });
    const routed = { originalUrl: (req as KeyedRequest).originalUrl, url: req.url, $action: action as Record<string, unknown> };
    const claim = await this.settle(routed, await this.store.claim(scope, key, fingerprint), id, () => this.store.claim(scope, key, fingerprint));
    this.hold(req as KeyedRequest, routed, scope, key, claim.claimId);
  }

  /**
   * A route claiming in its own write: the claim goes to the action on its meta, and nothing is
   * asked of the database here. If the write found the key held, resolveLost answers as a
   * claim made here would have; if the action did not take the claim, the key is claimed and
   * kept after the fact, and that action's keys are claimed before it runs from then on.
   */
  private offerInline(req: KeyedRequest, action: Action, meta: Meta, k: Pick<InlineClaim, 'action' | 'scope' | 'key' | 'fingerprint'>): void {
    const claim = this.store.inlineClaim(k);
    offerClaim(meta, claim);
    const routed = { originalUrl: req.originalUrl, url: req.url, $action: action as Record<string, unknown> };
    const held = this.hold(req, routed, claim.scope, claim.key, claim.claim_id, claim);
    held.resolveLost = async () => {
      held.settle();
      held.resolveLost = undefined; // answered once: what it throws is not resolved again
      const found = await this.settle(routed, await this.store.claim(claim.scope, claim.key, claim.fingerprint), `${claim.scope}\n${claim.key}`, () => this.store.claim(claim.scope, claim.key, claim.fingerprint));
      // the key was freed or expired since the write found it held: this request ran nothing
      await this.store.release(claim.scope, claim.key, found.claimId);
      throw ERRORS.IDEMPOTENCY_CLAIM_LOST('The request with this Idempotency-Key before it has just ended; retry this one.');
    };
  }

  /** What a claim found, answered: the claim when it is this request's, else the error or replay to send. */
  private async settle(req: RoutedRequest, claim: Claim, id: string, again: () => Promise<Claim>): Promise<{ claimId: string }> {
    const keeping = this.keeping.get(id);
    if (claim.outcome === 'in_flight' && keeping) {
      await keeping;
      claim = await again();
    }
    if (claim.outcome === 'in_flight') throw ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT('A request with this Idempotency-Key is still being processed; retry once it has answered.');
    if (claim.outcome === 'mismatch') throw ERRORS.IDEMPOTENCY_KEY_REUSED('This Idempotency-Key was used for another request (method, path or body differ); use a new key.');
    if (claim.outcome === 'replay') throw new IdempotentReplay(this.withLocation(req, claim.response));
    return claim;
  }

  /** A kept answer with its `Location`: one kept with the claim has it derived again from its body, as when it was sent. */
  private withLocation(req: RoutedRequest, response: StoredResponse): StoredResponse {
    if (response.location !== null || response.status !== 201 || response.contentType !== KEPT_ANSWER_TYPE || !response.body) return response;
    return { ...response, location: this.locationOf(req, response.status, JSON.parse(response.body.toString('utf8'))) };
  }

  /**
   * Puts the held key on the request: its answer is kept (or the key freed) once the route has
   * answered. An inline claim counts once the action says its write took it.
   */
  private hold(req: KeyedRequest, routed: RoutedRequest, scope: string, key: string, claimId: string, inline?: InlineClaim): HeldKey & { settle(): void } {
    const { store } = this;
    const id = `${scope}\n${key}`;
    let settled = false;
    const held = {
      settle: () => {
        settled = true;
      },
      keep: (meta: Meta, data: unknown) => {
        if (settled) return;
        settled = true;
        const response = storableResponse(meta, data);
        let write: Promise<unknown>;
        if (inline && !claimTaken(meta, inline)) write = this.keepAfterTheFact(inline, req, response);
        else if (inline && keptAsSent(keptAnswerOf(meta), response, this.locationOf(routed, response?.status ?? 0, data))) return;
        else write = response ? store.complete(scope, key, claimId, response) : store.release(scope, key, claimId);
        if (inline && keptAnswerOf(meta)) this.onKeepFailed(new Error(`${inline.action} (${req.method} ${req.originalUrl ?? req.url}) kept an answer with its claim other than the one it sent; the sent one is kept by a second write`));
        const kept = write.then(() => undefined).catch(this.onKeepFailed).finally(() => this.keeping.delete(id));
        this.keeping.set(id, kept);
      },
      async release() {
        if (settled) return;
        settled = true;
        await store.release(scope, key, claimId);
      },
    };
    req.$idempotencyKey = held;
    return held;
  }

  /** An inline claim the action did not take (a defect of the action): claim and keep now. */
  private async keepAfterTheFact(inline: InlineClaim, req: KeyedRequest, response: StoredResponse | undefined): Promise<void> {
    this.untaken.add(inline.action);
    this.onKeepFailed(new Error(`${inline.action} (${req.method} ${req.originalUrl ?? req.url}) declares idempotency 'inline' but its write did not take the claim; its keys are claimed before it runs from now on`));
    const { scope, key } = inline;
    const claim = await this.store.claim(scope, key, inline.fingerprint);
    if (claim.outcome !== 'claimed') return;
    await (response ? this.store.complete(scope, key, claim.claimId, response) : this.store.release(scope, key, claim.claimId));
  }
}

/** Whether the answer kept with the claim is the response sent (its Location derived from it alike). */
function keptAsSent(kept: KeptAnswer | undefined, sent: StoredResponse | undefined, derivedLocation: string | null): boolean {
  if (!kept || !sent?.body) return false;
  return sent.status === kept.status && sent.contentType === KEPT_ANSWER_TYPE && sent.location === derivedLocation && sent.body.equals(Buffer.from(kept.body));
}

/** Keeps the answer of the request's key, if it holds one (the route's onAfterCall). */
export function keepAnswer(req: IncomingMessage, meta: Meta, data: unknown): void {
  (req as KeyedRequest).$idempotencyKey?.keep(meta, data);
}

/** For an inline claim the action's write found held: rejects with the answer (a replay, 422 or 409). */
export function resolveLostClaim(req: IncomingMessage): Promise<never> | undefined {
  return (req as KeyedRequest).$idempotencyKey?.resolveLost?.();
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
