import type { Context } from 'moleculer';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { createUser } from '../lib/create-user.ts';
import { clientAddressOf, type IdentityDeps } from '../lib/deps.ts';
import { AUTH_ERR_SIGNUP_DISABLED } from '../lib/errors.ts';
import { EMAIL_RULE, ENTITY_NAME_RULE, NEW_PASSWORD_RULE } from '../lib/rules.ts';
import { issueToken } from '../lib/token-store.ts';
import { ENTITY_SCHEMA, TOKEN_SCHEMA, USER_SCHEMA, entityView, userView, type EntityView, type TokenView, type UserView } from '../lib/views.ts';

interface RegisterParams {
  entity_name: string;
  email: string;
  password: string;
}

/**
 * With SIGNUP_ENABLED=true, anyone may create a new entity and become its owner. Otherwise the
 * route answers 403 AUTH_ERR_SIGNUP_DISABLED. Each sign-up counts against the client address's
 * failed-login budget, so one address cannot create entities without end.
 */
export const registerAction = {
  rest: 'POST /register',
  location: '/auth/me',
  auth: false,
  summary: 'Create a new entity and its owner (only when SIGNUP_ENABLED=true); returns a token',
  tags: ['auth'],
  params: { entity_name: ENTITY_NAME_RULE, email: EMAIL_RULE, password: NEW_PASSWORD_RULE },
  response: {
    201: {
      description: 'The entity, its owner and a bearer token for the owner',
      schema: {
        type: 'object',
        properties: { ...TOKEN_SCHEMA.properties, user: USER_SCHEMA, entity: ENTITY_SCHEMA },
        required: [...TOKEN_SCHEMA.required, 'user', 'entity'],
      },
    },
  },
  async handler(this: { deps: IdentityDeps }, ctx: Context<RegisterParams>): Promise<TokenView & { user: UserView; entity: EntityView }> {
    const { deps } = this;
    if (!deps.env.SIGNUP_ENABLED) throw AUTH_ERR_SIGNUP_DISABLED('Sign-up is disabled on this server; ask an owner or admin to invite you.');
    const address = clientAddressOf(ctx.meta);
    await deps.limiter.assertAllowed(ctx.params.email, address);
    await deps.limiter.recordAddressAttempt(address);
    const created = await deps.db.transaction(async (transaction) => {
      const entity = await deps.models.Entity.create({ id: newId(), name: ctx.params.entity_name }, { transaction });
      const user = await createUser(deps.models, { entity_id: entity.id, email: ctx.params.email, password: ctx.params.password, role: 'owner' }, transaction);
      const token = await issueToken(deps.db, user, deps.env.TOKEN_TTL_SECONDS, transaction);
      return { entity, user, token };
    });
    (ctx.meta as { $statusCode?: number }).$statusCode = 201;
    return {
      access_token: created.token,
      token_type: 'bearer',
      expires_in: deps.env.TOKEN_TTL_SECONDS,
      user: userView(created.user),
      entity: entityView(created.entity),
    };
  },
};
