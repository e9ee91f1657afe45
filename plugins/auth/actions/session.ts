import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import type { IdentityDeps } from '../lib/deps.ts';
import type { SessionIdentity } from '../lib/token-store.ts';
import { hashToken } from '../lib/tokens.ts';
import { issueToken, lookupToken, revokeToken } from '../lib/token-store.ts';
import { TOKEN_SCHEMA, type TokenView } from '../lib/views.ts';

type This = { deps: IdentityDeps };

/** The presented token's row, as authenticate put it into ctx.meta.user. */
function sessionOf(ctx: Context): SessionIdentity {
  const who = identityOf(ctx) as unknown as Partial<SessionIdentity>;
  if (typeof who.token_id !== 'string') throw ERRORS.UNAUTHORIZED('This action needs a session token.');
  return who as SessionIdentity;
}

/**
 * Called by the gateway (any node) for a bearer token it has not verified in the last second:
 * the identity behind the token, read from the database.
 */
export const authenticateAction = {
  visibility: 'public',
  params: { token: { type: 'string', min: 1, max: 512 } },
  async handler(this: This, ctx: Context<{ token: string }>): Promise<SessionIdentity> {
    const identity = await lookupToken(this.deps.db, hashToken(ctx.params.token));
    if (!identity) throw ERRORS.UNAUTHORIZED('The token is unknown, expired or revoked.');
    return identity;
  },
};

export const logoutAction = {
  rest: 'POST /logout',
  role: 'viewer' as const,
  summary: 'Revoke the presented token',
  tags: ['auth'],
  params: {},
  response: { 204: { description: 'Logged out; the token is no longer accepted on any node' } },
  async handler(this: This, ctx: Context): Promise<void> {
    const session = sessionOf(ctx);
    await revokeToken(this.deps.db, session.id, session.token_id);
    await this.deps.invalidate({ token_ids: [session.token_id] });
  },
};

export const refreshAction = {
  rest: 'POST /refresh',
  role: 'viewer' as const,
  summary: 'Exchange the presented token for a new one with a fresh lifetime (the old one is revoked)',
  tags: ['auth'],
  params: {},
  response: TOKEN_SCHEMA,
  async handler(this: This, ctx: Context): Promise<TokenView> {
    const session = sessionOf(ctx);
    const token = await this.deps.db.transaction(async (transaction) => {
      // a token revoked on another node within the last second must not buy a new one
      if (!(await revokeToken(this.deps.db, session.id, session.token_id, transaction))) {
        throw ERRORS.UNAUTHORIZED('The token is unknown, expired or revoked.');
      }
      return issueToken(this.deps.db, session, this.deps.env.TOKEN_TTL_SECONDS, transaction);
    });
    await this.deps.invalidate({ token_ids: [session.token_id] });
    return { access_token: token, token_type: 'bearer', expires_in: this.deps.env.TOKEN_TTL_SECONDS };
  },
};
