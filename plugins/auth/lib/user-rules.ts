import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import type { Role, UserStatus } from './models.ts';

export interface UserChange {
  name?: string;
  role?: Role;
  status?: UserStatus;
}

/**
 * Who may do what to whom (owners and admins only reach here): an admin cannot create, promote
 * to, or change an owner. Throws FORBIDDEN. Pure, so the rules read in one place.
 */
export function assertMayCreate(actorRole: Role, role: Role): void {
  if (actorRole !== 'owner' && role === 'owner') throw ERRORS.FORBIDDEN('Only an owner can create an owner.');
}

export function assertMayChange(actorRole: Role, target: { role: Role }, change: UserChange): void {
  if (actorRole === 'owner') return;
  if (target.role === 'owner') throw ERRORS.FORBIDDEN('Only an owner can change an owner.');
  if (change.role === 'owner') throw ERRORS.FORBIDDEN('Only an owner can make a user an owner.');
}

/** True when the change takes an active owner away (demotion or deactivation). */
export function removesActiveOwner(target: { role: Role; status: UserStatus }, change: UserChange): boolean {
  if (target.role !== 'owner' || target.status !== 'active') return false;
  return (change.role !== undefined && change.role !== 'owner') || change.status === 'deactivated';
}
