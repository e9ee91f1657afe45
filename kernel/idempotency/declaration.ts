import type { ActionDocKeys } from '../openapi/types.ts';

type ActionLike = Pick<ActionDocKeys, 'auth' | 'idempotency' | 'response'>;

/** Whose keys a request's key is kept among. */
export type KeyScope = { by: 'entity'; inline?: boolean } | { by: 'param'; param: string };

const STARTS_OR_CREATES = new Set(['201', '202']);

/**
 * Whether a route takes an Idempotency-Key, and among whose keys. Derived, so actions need not
 * say it: a POST that answers 201 (creates) or 202 (starts something) for an authenticated
 * caller takes one, scoped to the caller's entity. An action's `idempotency` overrides:
 * `false` opts out, `true` opts in (another POST with an effect), `{ scope_param }` opts a
 * public route in with keys scoped to that path parameter (a webhook's token: per binding);
 * `'inline'` opts in with the claim taken in the action's own write (inline.ts).
 */
export function keyScopeOf(action: ActionLike, method: string): KeyScope | undefined {
  const declared = action.idempotency;
  if (declared === false) return undefined;
  if (typeof declared === 'object' && declared !== null) return { by: 'param', param: declared.scope_param };
  if (action.auth === false || action.auth === 'worker') return undefined;
  if (declared === true) return { by: 'entity' };
  if (declared === 'inline') return { by: 'entity', inline: true };
  return method === 'POST' && answersCreatedOrAccepted(action.response) ? { by: 'entity' } : undefined;
}

function answersCreatedOrAccepted(response: ActionLike['response']): boolean {
  if (response === null || typeof response !== 'object') return false;
  return Object.keys(response).some((status) => STARTS_OR_CREATES.has(status));
}
