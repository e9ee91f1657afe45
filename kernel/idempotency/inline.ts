import { ERRORS } from '../errors/catalogue.ts';

/**
 * An Idempotency-Key claimed inside the action's own write instead of by a statement of its
 * own before the action runs (a route declaring `idempotency: 'inline'`). The gateway hands the
 * claim to the action in `ctx.meta`; the action's store puts claimCte() in the statement that
 * commits its effect and guards that effect on it, so key and effect commit together, in one
 * round trip. When the key is held already (answered, or still in flight) the statement
 * changes nothing and the store throws IDEMPOTENCY_CLAIM_LOST: the gateway then reads the key
 * and answers as for any keyed route (a replay, a 422 or a 409).
 *
 * An action that knows its answer before its write (answerWith) keeps it in the same statement:
 * the key commits answered, with no write after the response. The gateway checks that the
 * answer it sent is the one kept, and keeps the sent one by a second write if not.
 */
export interface InlineClaim {
  /** the action that takes the claim; a nested call or an event handler never does */
  action: string;
  scope: string;
  key: string;
  fingerprint: string;
  claim_id: string;
  ttl_seconds: number;
  /** a claim in flight longer than this is abandoned (its node died) and taken over */
  abandon_after_ms: number;
  /** the answer the action will send, kept by the same write (answerWith) */
  answer?: KeptAnswer;
}

/**
 * An answer kept with the claim: a JSON body and its status. Its `Location`, derived from the
 * body by the route (as for the answer sent), is derived again when it is replayed.
 */
export interface KeptAnswer {
  status: number;
  body: string;
}

/** The content type of a kept answer's body. */
export const KEPT_ANSWER_TYPE = 'application/json; charset=utf-8';

const CLAIM_META = '$idempotencyClaim';
const TAKEN_META = '$idempotencyClaimTaken';
const ANSWER_META = '$idempotencyClaimAnswer';

type MetaCtx = { meta: object; action?: { name?: string } | null };

/** Puts a claim on the request's meta for its action to take. */
export function offerClaim(meta: object, claim: InlineClaim): void {
  (meta as Record<string, unknown>)[CLAIM_META] = claim;
}

/** The claim this action is to take in its write, if the gateway offered one. */
export function inlineClaimOf(ctx: MetaCtx): InlineClaim | undefined {
  const claim = (ctx.meta as Record<string, unknown>)[CLAIM_META] as InlineClaim | undefined;
  return claim && ctx.action?.name === claim.action ? claim : undefined;
}

/** The claim, to be taken with the answer `data` the action will send with `status`. */
export function answerWith(claim: InlineClaim, status: number, data: unknown): InlineClaim {
  return { ...claim, answer: { status, body: JSON.stringify(data) } };
}

/** Records that the action's committed write took the claim (the gateway checks it afterwards). */
export function markClaimTaken(ctx: MetaCtx, claim: InlineClaim): void {
  const meta = ctx.meta as Record<string, unknown>;
  meta[TAKEN_META] = claim.claim_id;
  if (claim.answer) meta[ANSWER_META] = claim.answer;
}

/** The answer the action's write kept with the claim, if it kept one. */
export function keptAnswerOf(meta: object): KeptAnswer | undefined {
  return (meta as Record<string, unknown>)[ANSWER_META] as KeptAnswer | undefined;
}

/** Whether the action said it took the claim. */
export function claimTaken(meta: object, claim: InlineClaim): boolean {
  return (meta as Record<string, unknown>)[TAKEN_META] === claim.claim_id;
}

/**
 * The CTE `idempotency_claim` claiming the key (a new one, or one expired or abandoned), and the
 * guard to AND into the effect's write: the effect happens only when the claim did. `bind`
 * adds a positional parameter and returns its placeholder.
 */
export function claimCte(bind: (value: unknown) => string, claim: InlineClaim): { cte: string; guard: string } {
  const { answer } = claim;
  const kept = answer
    ? { state: "'done'", status: `${bind(answer.status)}::smallint`, type: bind(KEPT_ANSWER_TYPE), body: `convert_to(${bind(answer.body)}, 'UTF8')` }
    : { state: "'in_flight'", status: 'NULL::smallint', type: 'NULL', body: 'NULL::bytea' };
  const cte = `idempotency_claim AS (
    INSERT INTO idempotency_keys (scope, key, fingerprint, claim_id, state, status, content_type, body, claimed_at, expires_at)
    VALUES (${bind(claim.scope)}, ${bind(claim.key)}, ${bind(claim.fingerprint)}, ${bind(claim.claim_id)}::uuid, ${kept.state}, ${kept.status}, ${kept.type}, ${kept.body}, now(), now() + make_interval(secs => ${bind(claim.ttl_seconds)}::int))
    ON CONFLICT (scope, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, claim_id = EXCLUDED.claim_id, state = EXCLUDED.state, status = EXCLUDED.status, content_type = EXCLUDED.content_type,
           location = NULL, body = EXCLUDED.body, claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
     WHERE idempotency_keys.expires_at <= now()
        OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.claimed_at <= now() - make_interval(secs => ${bind(claim.abandon_after_ms)}::int / 1000.0))
    RETURNING claim_id
  )`;
  return { cte, guard: 'EXISTS (SELECT 1 FROM idempotency_claim)' };
}

/** Thrown by a store whose guarded write changed nothing because the key was held already. */
export function claimLost(): Error {
  return ERRORS.IDEMPOTENCY_CLAIM_LOST('The Idempotency-Key is held by an earlier request.');
}
