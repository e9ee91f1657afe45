import type { Context } from 'moleculer';
import { ERRORS } from '../errors/catalogue.ts';
import type { Identity } from '../gateway/authenticate.ts';

export type Role = 'owner' | 'admin' | 'member';

/** The caller of an authenticated action; 401 when there is none (a public or internal call). */
export function identityOf(ctx: Context): Identity & { role: Role } {
  const user = (ctx.meta as { user?: Identity | null }).user;
  if (!user?.entity_id) throw ERRORS.UNAUTHORIZED('This action needs an authenticated caller.');
  return user as Identity & { role: Role };
}

export function entityOf(ctx: Context): string {
  return identityOf(ctx).entity_id;
}

/** 403 unless the caller has one of the roles. */
export function requireRole(ctx: Context, ...roles: Role[]): Identity & { role: Role } {
  const who = identityOf(ctx);
  if (!roles.includes(who.role)) throw ERRORS.FORBIDDEN(`This needs the role ${roles.join(' or ')}; you are ${who.role}.`);
  return who;
}
