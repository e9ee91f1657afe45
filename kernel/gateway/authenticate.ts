import type { Context, ServiceBroker } from 'moleculer';
import type { IncomingMessage } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';
import { kernelOf } from '../context.ts';
import { checkWorkerToken } from './worker-token.ts';

/** Who is calling: what the identity provider returns for a valid bearer token. */
export interface Identity {
  id: string;
  entity_id: string;
  role: string;
  [key: string]: unknown;
}

/** The action an identity package provides to turn a bearer token into an Identity. */
export const IDENTITY_ACTION = 'auth.authenticate';

/**
 * Every /api/v1 route needs a bearer token unless its action says `auth: false`. The token is
 * checked by whichever package provides `auth.authenticate` (any node); with none loaded,
 * no token can be valid.
 */
export async function authenticateRequest(broker: ServiceBroker, ctx: Context, req: IncomingMessage, action: { auth?: unknown } | undefined): Promise<Identity | null> {
  if (action?.auth === false) return null;
  if (action?.auth === 'worker') {
    authenticateWorker(broker, req);
    (ctx.meta as Record<string, unknown>).worker = true;
    return null;
  }
  const header = req.headers.authorization;
  if (!header) throw ERRORS.UNAUTHORIZED('This route needs an Authorization: Bearer <token> header.');
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,512})$/i.exec(header.trim());
  if (!match) throw ERRORS.UNAUTHORIZED('The Authorization header must be "Bearer <token>".');
  if (!isAvailable(broker)) {
    throw ERRORS.UNAUTHORIZED('No identity provider is loaded, so no token can be accepted.');
  }
  return (await ctx.call(IDENTITY_ACTION, { token: match[1] })) as Identity;
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
