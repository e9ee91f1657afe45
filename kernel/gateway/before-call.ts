import type { IncomingMessage } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';
import { clientIp } from './client-ip.ts';
import { assertAcceptedMediaType } from './content-type.ts';
import { assertStorableParams } from './param-check.ts';
import { assertRoleAllows, requiredRole } from '../tenancy/roles.ts';
import type { Identity } from './authenticate.ts';

type ActionInfo = { accepts?: unknown; multipart?: unknown; role?: unknown };

/**
 * What every /api/v1 call goes through before authentication, on moleculer-web's path (its
 * `onBeforeCall`) and on the lean one alike, so the two answer a bad call the same way: the
 * caller's address in meta, a body in a media type the action accepts (415), and an upload
 * route sent multipart/form-data with a boundary. Then, once the caller is known,
 * `afterAuthentication`.
 */
export function beforeCall(meta: Record<string, unknown>, req: IncomingMessage, action: ActionInfo, multipart: boolean): void {
  meta.client_ip = clientIp(req);
  const accepts = Array.isArray(action.accepts) ? (action.accepts as string[]) : multipart ? ['multipart/form-data'] : ['application/json'];
  if (!multipart) assertAcceptedMediaType(req, accepts);
  if (multipart && !/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '')) {
    throw ERRORS.UNSUPPORTED_MEDIA_TYPE('This route takes an upload: send multipart/form-data with a boundary.', { accepted: ['multipart/form-data'] });
  }
}

/**
 * After authentication, on both paths: the caller's role is enough for the route (403; the one
 * place roles are enforced, see docs/roles.md), then no NUL in any parameter and none nested
 * too deep (422). A public or worker route has no user, and no role to check.
 */
export function afterAuthentication(user: Identity | null | undefined, action: ActionInfo, method: string, params: Record<string, unknown>): void {
  if (user) assertRoleAllows(user.role, requiredRole(action, method));
  assertStorableParams(params);
}
