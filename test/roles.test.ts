import test from 'ava';
import { assertRoleAllows, requiredRole, roleAllows, USER_ROLES } from '../kernel/tenancy/roles.ts';

test('left out, the role follows the method: reads for viewers, other methods for members', (t) => {
  for (const method of ['GET', 'get', 'HEAD']) t.is(requiredRole({}, method), 'viewer');
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) t.is(requiredRole(undefined, method), 'member');
});

test("an action's own role wins over the method, in both directions", (t) => {
  t.is(requiredRole({ role: 'admin' }, 'GET'), 'admin');
  t.is(requiredRole({ role: 'viewer' }, 'PUT'), 'viewer');
});

test('a declared role that is not a role fails closed: only an owner passes', (t) => {
  for (const role of ['superuser', 'Admin', 42, null]) t.is(requiredRole({ role }, 'GET'), 'owner');
});

test('each role may do all that the roles before it may, and an unknown role nothing', (t) => {
  for (const [i, role] of USER_ROLES.entries()) {
    for (const [j, required] of USER_ROLES.entries()) t.is(roleAllows(role, required), i >= j, `${role} for ${required}`);
  }
  t.false(roleAllows('root', 'viewer'));
  t.false(roleAllows(undefined, 'viewer'));
});

test('a refusal is 403 FORBIDDEN naming the role needed and the caller\'s', (t) => {
  const err = t.throws(() => assertRoleAllows('member', 'admin')) as unknown as { code: number; type: string; data: unknown; message: string };
  t.like(err, { code: 403, type: 'FORBIDDEN', data: { required_role: 'admin', role: 'member' } });
  t.regex(err.message, /needs the role admin or above; you are member/);
  t.like(t.throws(() => assertRoleAllows('admin', 'owner')) as object, { message: 'This needs the role owner; you are admin.' });
  t.notThrows(() => assertRoleAllows('owner', 'owner'));
});
