import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { clientAddressOf, type IdentityDeps } from '../lib/deps.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import { LOGIN_PASSWORD_RULE, NEW_PASSWORD_RULE } from '../lib/rules.ts';
import { revokeUserTokens } from '../lib/token-store.ts';
import { ENTITY_SCHEMA, USER_SCHEMA, entityView, userView, type EntityView, type UserView } from '../lib/views.ts';

type This<D = IdentityDeps> = { deps: D };

export const meAction = {
  rest: 'GET /me',
  summary: 'The calling user',
  tags: ['auth'],
  params: {},
  response: USER_SCHEMA,
  async handler(this: This, ctx: Context): Promise<UserView> {
    const user = await tenantRepo(this.deps.models.User, 'user').get(ctx, identityOf(ctx).id);
    return userView(user);
  },
};

export const entityMeAction = {
  rest: 'GET /me',
  summary: "The calling user's entity (organisation)",
  tags: ['auth'],
  params: {},
  response: ENTITY_SCHEMA,
  async handler(this: This, ctx: Context): Promise<EntityView> {
    const entity = await this.deps.models.Entity.findByPk(identityOf(ctx).entity_id);
    if (!entity) throw ERRORS.NOT_FOUND('Your entity no longer exists.', { resource: 'entity' });
    return entityView(entity);
  },
};

interface PasswordParams {
  current_password: string;
  new_password: string;
}

/**
 * A wrong current password is a 422 naming `current_password` (not a 401, which would read as
 * "your session is over"); it counts as a failed login of the account.
 */
export const changePasswordAction = {
  rest: 'PUT /password',
  role: 'viewer' as const,
  summary: "Change one's own password; the user's other tokens are revoked",
  tags: ['auth'],
  params: { current_password: LOGIN_PASSWORD_RULE, new_password: NEW_PASSWORD_RULE },
  response: { 204: { description: 'Changed; every other token of the user is revoked' } },
  async handler(this: This<IdentityDeps>, ctx: Context<PasswordParams>): Promise<void> {
    const who = identityOf(ctx) as ReturnType<typeof identityOf> & { token_id?: string };
    const { User } = this.deps.models;
    const address = clientAddressOf(ctx.meta);
    const email = String(who.email ?? '');
    await this.deps.limiter.assertAllowed(email, address);
    const user = await User.scope('withPassword').findOne({ where: { entity_id: who.entity_id, id: who.id } });
    if (!user) throw ERRORS.UNAUTHORIZED('The token is unknown, expired or revoked.');
    if (!(await verifyPassword(ctx.params.current_password, user.password_hash))) {
      await this.deps.limiter.recordFailure(email, address);
      throw ERRORS.VALIDATION_FAILED('The current password is wrong.', [
        { field: 'current_password', message: 'The current password is wrong.', type: 'passwordMismatch' },
      ]);
    }
    const hash = await hashPassword(ctx.params.new_password);
    await this.deps.db.transaction(async (transaction) => {
      await user.update({ password_hash: hash }, { transaction });
      await revokeUserTokens(this.deps.db, who.id, { keepTokenId: who.token_id, transaction });
    });
    await this.deps.invalidate({ user_ids: [who.id] });
  },
};
