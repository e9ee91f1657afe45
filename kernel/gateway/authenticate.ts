import type { ServiceBroker } from 'moleculer';
import type { IncomingMessage } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';
import { kernelOf } from '../context.ts';
import { checkWorkerToken } from './worker-token.ts';
import type { IdentityCache, IdentityLookup } from './identity-cache.ts';

/** Who is calling: what the identity provider returns for a valid bearer token. */
export interface Identity {
  id: string;
  entity_id: string;
  role: string;
  /** the presented token's id (not a secret), so its revocation can find cached answers */
  token_id?: string;
  /** when the presented token expires (ms since the epoch); a cached answer never outlives it */
  expires_at?: number;
  [key: string]: unknown;
}

/** The action an identity package provides to turn a bearer token into an Identity. */
export const IDENTITY_ACTION = 'auth.authenticate';

/** The event an identity package broadcasts when tokens or users stop being valid as cached. */
export const IDENTITY_INVALIDATED_EVENT = 'auth.sessions.invalidated';

/** Payload of IDENTITY_INVALIDATED_EVENT: the tokens and users whose cached answers must go. */
export interface IdentityInvalidation {
  token_ids?: string[];
  user_ids?: string[];
}

/** Whoever makes the request's calls: a moleculer Context, or the gateway's lean read path. */
export interface Caller {
  meta: object;
  call(action: string, params: object): Promise<unknown>;
}

/**
 * Every /api/v1 route needs a bearer token unless its action says `auth: false`. The token is
 * checked by whichever package provides `auth.authenticate` (any node), at most once a second
 * per token and node (the gateway's IdentityCache); with no provider loaded, no token can be valid.
 */
export async function authenticateRequest(broker: ServiceBroker, caller: Caller, req: IncomingMessage, action: { auth?: unknown } | undefined, identities: IdentityCache): Promise<Identity | null> {
  if (action?.auth === false) return null;
  if (action?.auth === 'worker') {
    authenticateWorker(broker, req);
    (caller.meta as Record<string, unknown>).worker = true;
    return null;
  }
  const header = req.headers.authorization;
  if (!header) throw ERRORS.UNAUTHORIZED('This route needs an Authorization: Bearer <token> header.');
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,512})$/i.exec(header.trim());
  if (!match) throw ERRORS.UNAUTHORIZED('The Authorization header must be "Bearer <token>".');
  if (!isAvailable(broker)) {
    throw ERRORS.UNAUTHORIZED('No identity provider is loaded, so no token can be accepted.');
  }
  // keyed by the token itself: the cache is this process's memory, which holds the request anyway
  const identity = await identities.resolve(match[1], () => verify(caller, match[1]));
  if (!identity) throw ERRORS.UNAUTHORIZED('The token is unknown, expired or revoked.');
  return identity;
}

/** Asks the identity provider; a refusal (401) is an answer to remember, any other error is not. */
async function verify(caller: Caller, token: string): Promise<IdentityLookup> {
  try {
    const identity = (await caller.call(IDENTITY_ACTION, { token })) as Identity;
    return { identity, expiresAt: typeof identity.expires_at === 'number' ? identity.expires_at : Infinity };
  } catch (err) {
    if (ERRORS.UNAUTHORIZED.is(err)) return null;
    throw err;
  }
}

function isAvailable(broker: ServiceBroker): boolean {
  return !!broker.registry.getActionEndpoints(IDENTITY_ACTION)?.hasAvailable();
}

const WORKER_DETAIL = {
  missing: 'This route needs the header Authorization: Bearer <WORKER_TOKEN>.',
  malformed: 'The Authorization header must be "Bearer <WORKER_TOKEN>".',
  wrong: 'The worker token is not valid.',
} as const;

/** Routes with `auth: 'worker'` take the deployment's WORKER_TOKEN instead of a user token. */
function authenticateWorker(broker: ServiceBroker, req: IncomingMessage): void {
  const verdict = checkWorkerToken(req.headers.authorization, kernelOf(broker).config.env.WORKER_TOKEN);
  if (verdict === 'disabled') throw ERRORS.WORKER_ROUTES_DISABLED('Worker routes are disabled: WORKER_TOKEN is not set on this deployment.');
  if (verdict !== 'ok') throw ERRORS.UNAUTHORIZED(WORKER_DETAIL[verdict]);
}
