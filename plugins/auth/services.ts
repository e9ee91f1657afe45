import type { Service, ServiceBroker, ServiceSchema } from 'moleculer';
import { identityDeps, type IdentityDeps } from './lib/deps.ts';
import { ensureFirstOwner, generatedPasswordNotice } from './lib/first-owner.ts';
import { hashPassword, generatePassword } from './lib/password.ts';
import { purgeDeadTokens } from './lib/token-store.ts';
import { loginAction, type LoginDeps } from './actions/login.ts';
import { authenticateAction, logoutAction, refreshAction } from './actions/session.ts';
import { changePasswordAction, entityMeAction, meAction } from './actions/profile.ts';
import { registerAction } from './actions/register.ts';
import { deactivateUserAction, inviteUserAction, listUsersAction, updateUserAction } from './actions/users.ts';

type AuthDeps = LoginDeps;
type Svc<D> = { deps: D; broker: ServiceBroker; logger: Service['logger']; purgeTimer?: NodeJS.Timeout };

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * `auth`: login, tokens (`auth.authenticate`, which the gateway calls on every request), the
 * caller's profile and password, sign-up, and the first owner on an empty database.
 */
export const authService: ServiceSchema = {
  name: 'auth',
  actions: {
    authenticate: authenticateAction,
    login: loginAction,
    logout: logoutAction,
    refresh: refreshAction,
    me: meAction,
    password: changePasswordAction,
    register: registerAction,
  },
  created(this: Svc<AuthDeps>) {
    // the dummy hash is replaced by a real one (same parameters, so the same cost) in started()
    this.deps = { ...identityDeps(this.broker), dummyHash: '' };
  },
  async started(this: Svc<AuthDeps>) {
    this.deps.dummyHash = await hashPassword(generatePassword());
    const env = this.deps.env;
    const first = await ensureFirstOwner(this.deps.db, { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD });
    if (first.created) this.logger.info(`Created the first entity and its owner ${first.email}.`);
    if (first.generatedPassword) {
      // warn so it shows at the default level; at LOG_LEVEL error/fatal, at that level so it still shows
      const level = env.LOG_LEVEL === 'error' || env.LOG_LEVEL === 'fatal' ? env.LOG_LEVEL : 'warn';
      this.logger[level](generatedPasswordNotice(first.email!, first.generatedPassword));
    }
    this.purgeTimer = setInterval(() => void purgeDeadTokens(this.deps.db).catch((err) => this.logger.warn(`Token purge failed: ${err.message}`)), PURGE_EVERY_MS);
    this.purgeTimer.unref();
  },
  async stopped(this: Svc<AuthDeps>) {
    clearInterval(this.purgeTimer);
  },
} as unknown as ServiceSchema;

/** `users`: user management for owners and admins, within the caller's entity. */
export const usersService: ServiceSchema = {
  name: 'users',
  actions: { list: listUsersAction, create: inviteUserAction, update: updateUserAction, remove: deactivateUserAction },
  created(this: Svc<IdentityDeps>) {
    this.deps = identityDeps(this.broker);
  },
} as unknown as ServiceSchema;

/** `entities`: the caller's entity (`GET /api/v1/entities/me`). */
export const entitiesService: ServiceSchema = {
  name: 'entities',
  actions: { me: entityMeAction },
  created(this: Svc<IdentityDeps>) {
    this.deps = identityDeps(this.broker);
  },
} as unknown as ServiceSchema;
