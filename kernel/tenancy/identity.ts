import type { Context } from 'moleculer';
import { ERRORS } from '../errors/catalogue.ts';
import type { Identity } from '../gateway/authenticate.ts';
import type { Role } from './roles.ts';

export type { Role };

/** The caller of an authenticated action; 401 when there is none (a public or internal call). */
export function identityOf(ctx: Context): Identity & { role: Role } {
  const user = (ctx.meta as { user?: Identity | null }).user;
  if (!user?.entity_id) throw ERRORS.UNAUTHORIZED('This action needs an authenticated caller.');
  return user as Identity & { role: Role };
}

export function entityOf(ctx: Context): string {
  return identityOf(ctx).entity_id;
}
