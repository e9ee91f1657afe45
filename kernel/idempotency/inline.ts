import { ERRORS } from '../errors/catalogue.ts';

/**
 * An Idempotency-Key claimed inside the action's own write instead of by a statement of its
 * own before the action runs (a route declaring `idempotency: 'inline'`). The gateway hands the
 * claim to the action in `ctx.meta`; the action's store puts claimCte() in the statement that
 * commits its effect and guards that effect on it, so key and effect commit together, in one
 * round trip. When the key is held already (answered, or still in flight) the statement
 * changes nothing and the store throws IDEMPOTENCY_CLAIM_LOST: the gateway then reads the key
 * and answers as for any keyed route (a replay, a 422 or a 409).
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
}

const CLAIM_META = '$idempotencyClaim';
const TAKEN_META = '$idempotencyClaimTaken';

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

/** Records that the action's committed write took the claim (the gateway checks it afterwards). */
export function markClaimTaken(ctx: MetaCtx, claim: InlineClaim): void {
  (ctx.meta as Record<string, unknown>)[TAKEN_META] = claim.claim_id;
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
  const cte = `idempotency_claim AS (
    INSERT INTO idempotency_keys (scope, key, fingerprint, claim_id, state, claimed_at, expires_at)
    VALUES (${bind(claim.scope)}, ${bind(claim.key)}, ${bind(claim.fingerprint)}, ${bind(claim.claim_id)}::uuid, 'in_flight', now(), now() + make_interval(secs => ${bind(claim.ttl_seconds)}::int))
    ON CONFLICT (scope, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, claim_id = EXCLUDED.claim_id, state = 'in_flight', status = NULL, content_type = NULL,
           location = NULL, body = NULL, claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
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
