import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { clientAddressOf, type IdentityDeps } from '../lib/deps.ts';
import { hashPassword, needsRehash, verifyPassword } from '../lib/password.ts';
import { EMAIL_RULE, LOGIN_PASSWORD_RULE, normalizeEmail } from '../lib/rules.ts';
import { issueToken } from '../lib/token-store.ts';
import { TOKEN_SCHEMA, type TokenView } from '../lib/views.ts';

/** The one answer to a wrong password, an unknown email and a deactivated account alike. */
export function invalidCredentials(): Error {
  return ERRORS.UNAUTHORIZED('Invalid email or password.');
}

export interface LoginDeps extends IdentityDeps {
  /** a hash of no real password, checked when the email is unknown so both cases take as long */
  dummyHash: string;
}

interface Candidate {
  id: string;
  entity_id: string;
  status: string;
  password_hash: string;
}

async function login(deps: LoginDeps, ctx: Context<{ email: string; password: string }>): Promise<TokenView> {
  const email = normalizeEmail(ctx.params.email);
  const address = clientAddressOf(ctx.meta);
  await deps.limiter.assertAllowed(email, address);
  // by email across entities: the caller is not known yet (hence plain SQL, not the tenant model)
  const [user] = await deps.db.query<Candidate>('SELECT id, entity_id, status, password_hash FROM users WHERE lower(email) = :email', {
    replacements: { email },
    type: QueryTypes.SELECT,
  });
  const matches = await verifyPassword(ctx.params.password, user?.password_hash ?? deps.dummyHash);
  if (!user || !matches || user.status !== 'active') {
    await deps.limiter.recordFailure(email, address);
    throw invalidCredentials();
  }
  await deps.limiter.clearAccount(email);
  const newHash = needsRehash(user.password_hash) ? await hashPassword(ctx.params.password) : undefined;
  await deps.db.query(`UPDATE users SET last_login_at = now()${newHash ? ', password_hash = :hash' : ''} WHERE id = :id`, {
    replacements: { id: user.id, hash: newHash ?? null },
  });
  const token = await issueToken(deps.db, user, deps.env.TOKEN_TTL_SECONDS);
  return { access_token: token, token_type: 'bearer', expires_in: deps.env.TOKEN_TTL_SECONDS };
}

export const loginAction = {
  rest: 'POST /login',
  auth: false,
  summary: 'Log in with email and password; returns a bearer token',
  description:
    'Unknown email, wrong password and deactivated account give the same 401. Failed logins are limited per account and per client address (429 with Retry-After).',
  tags: ['auth'],
  params: { email: EMAIL_RULE, password: LOGIN_PASSWORD_RULE },
  response: TOKEN_SCHEMA,
  handler(this: { deps: LoginDeps }, ctx: Context<{ email: string; password: string }>): Promise<TokenView> {
    return login(this.deps, ctx);
  },
};
