import { ERRORS } from '../errors/catalogue.ts';

/**
 * The roles a user of an entity can have, from least to most: each may do all that the ones
 * before it may. docs/roles.md has the matrix of who may call what.
 */
export const USER_ROLES = ['viewer', 'member', 'admin', 'owner'] as const;

export type Role = (typeof USER_ROLES)[number];

/** Methods that only read: by default any role may call them. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What an action may declare next to `rest` and `auth`: the least role its routes need. */
export interface RoleDeclaration {
  /** the least role a caller needs; left out: `viewer` for GET, `member` for any other method */
  role?: Role;
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (USER_ROLES as readonly string[]).includes(value);
}

/**
 * The least role a route needs: the action's own `role`, else derived from the method (reads
 * for everyone, writes for members and up). A declared role that is not a role fails closed:
 * only an owner passes.
 */
export function requiredRole(action: { role?: unknown } | undefined, method: string): Role {
  const declared = action?.role;
  if (declared === undefined) return READ_METHODS.has(method.toUpperCase()) ? 'viewer' : 'member';
  return isRole(declared) ? declared : 'owner';
}

/** Whether `role` is `required` or above (an unknown role is below every role). */
export function roleAllows(role: unknown, required: Role): boolean {
  return isRole(role) && USER_ROLES.indexOf(role) >= USER_ROLES.indexOf(required);
}

/** 403 naming the role the route needs and the caller's, unless the caller's role suffices. */
export function assertRoleAllows(role: unknown, required: Role): void {
  if (roleAllows(role, required)) return;
  const above = required === 'owner' ? '' : ' or above';
  throw ERRORS.FORBIDDEN(`This needs the role ${required}${above}; you are ${isRole(role) ? role : 'without a role'}.`, { required_role: required, role: isRole(role) ? role : null });
}
