import type { Context } from 'moleculer';
import { QueryTypes, type Transaction } from 'sequelize';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { tenantRepo, type Page } from '../../../kernel/tenancy/repo.ts';
import { createUser } from '../lib/create-user.ts';
import type { IdentityDeps } from '../lib/deps.ts';
import { AUTH_ERR_LAST_OWNER } from '../lib/errors.ts';
import type { Role, UserModel } from '../lib/models.ts';
import { EMAIL_RULE, ID_RULE, NEW_PASSWORD_RULE, ROLE_RULE, STATUS_RULE, USER_NAME_RULE } from '../lib/rules.ts';
import { revokeUserTokens } from '../lib/token-store.ts';
import { assertMayChange, assertMayCreate, removesActiveOwner, type UserChange } from '../lib/user-rules.ts';
import { USER_SCHEMA, userView, type UserView } from '../lib/views.ts';

type This = { deps: IdentityDeps };
const repoOf = (deps: IdentityDeps) => tenantRepo(deps.models.User, 'user');

export const listUsersAction = {
  rest: 'GET /',
  role: 'admin' as const,
  summary: "Users of the caller's entity (owners and admins)",
  tags: ['users'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(USER_SCHEMA),
  async handler(this: This, ctx: Context<{ limit: number; offset: number }>): Promise<Page<UserView>> {
    const page = await repoOf(this.deps).page(ctx, { order: [['created_at', 'ASC'], ['id', 'ASC']], limit: ctx.params.limit, offset: ctx.params.offset });
    return { ...page, items: page.items.map(userView) };
  },
};

export const inviteUserAction = {
  rest: 'POST /',
  role: 'admin' as const,
  summary: 'Invite a user to the entity with an initial password (owners and admins; only owners create owners)',
  tags: ['users'],
  params: { email: EMAIL_RULE, password: NEW_PASSWORD_RULE, role: { ...ROLE_RULE, default: 'member' }, name: { ...USER_NAME_RULE, optional: true } },
  response: { 201: { description: 'The new user', schema: USER_SCHEMA } },
  async handler(this: This, ctx: Context<{ email: string; password: string; role: Role; name?: string }>): Promise<UserView> {
    const actor = identityOf(ctx);
    assertMayCreate(actor.role, ctx.params.role);
    const user = await createUser(this.deps.models, { entity_id: actor.entity_id, ...ctx.params });
    (ctx.meta as { $statusCode?: number }).$statusCode = 201;
    return userView(user);
  },
};

/**
 * Applies a change to a user of the caller's entity, serialised per entity (the entity row is
 * locked) so two owners demoting each other at once cannot leave the entity without one.
 */
async function changeUser(deps: IdentityDeps, ctx: Context, id: string, change: UserChange): Promise<UserModel> {
  const actor = identityOf(ctx);
  const user = await deps.db.transaction(async (transaction) => {
    await deps.db.query('SELECT id FROM entities WHERE id = :id FOR UPDATE', { replacements: { id: actor.entity_id }, type: QueryTypes.SELECT, transaction });
    const target = await repoOf(deps).get(ctx, id, { transaction, lock: true });
    assertMayChange(actor.role, target, change);
    if (removesActiveOwner(target, change) && (await otherActiveOwners(deps, actor.entity_id, target.id, transaction)) === 0) {
      throw AUTH_ERR_LAST_OWNER('The entity must keep at least one active owner; make another user owner first.', { user_id: target.id });
    }
    await target.update(change, { transaction });
    if (change.status === 'deactivated') await revokeUserTokens(deps.db, target.id, { transaction });
    return target;
  });
  if (change.role !== undefined || change.status !== undefined) await deps.invalidate({ user_ids: [user.id] });
  return user;
}

async function otherActiveOwners(deps: IdentityDeps, entityId: string, exceptId: string, transaction: Transaction): Promise<number> {
  const [row] = await deps.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM users WHERE entity_id = :entityId AND role = 'owner' AND status = 'active' AND id <> :exceptId",
    { replacements: { entityId, exceptId }, type: QueryTypes.SELECT, transaction },
  );
  return row.n;
}

export const updateUserAction = {
  rest: 'PUT /:id',
  role: 'admin' as const,
  summary: 'Change a user\'s name, role or status (owners and admins; the last active owner stays)',
  tags: ['users'],
  params: { id: ID_RULE, name: { ...USER_NAME_RULE, optional: true }, role: { ...ROLE_RULE, optional: true }, status: { ...STATUS_RULE, optional: true } },
  response: USER_SCHEMA,
  async handler(this: This, ctx: Context<UserChange & { id: string }>): Promise<UserView> {
    const { id, ...change } = ctx.params;
    return userView(await changeUser(this.deps, ctx, id, change));
  },
};

export const deactivateUserAction = {
  rest: 'DELETE /:id',
  role: 'admin' as const,
  summary: 'Deactivate a user and revoke their tokens (the record is kept)',
  tags: ['users'],
  params: { id: ID_RULE },
  response: { 204: { description: 'Deactivated; the user\'s tokens are refused on every node' } },
  async handler(this: This, ctx: Context<{ id: string }>): Promise<void> {
    await changeUser(this.deps, ctx, ctx.params.id, { status: 'deactivated' });
  },
};
