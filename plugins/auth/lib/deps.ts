import type { ServiceBroker } from 'moleculer';
import type { Sequelize } from 'sequelize';
import type { Env } from '../../../config/load.ts';
import { kernelOf } from '../../../kernel/context.ts';
import { LoginLimiter } from './login-limiter.ts';
import { identityModels, type IdentityModels } from './models.ts';
import { IDENTITY_INVALIDATED_EVENT, type IdentityInvalidation } from '../../../kernel/gateway/authenticate.ts';

/** What the package's actions work with; built once per service from the kernel context. */
export interface IdentityDeps {
  env: Env;
  db: Sequelize;
  models: IdentityModels;
  limiter: LoginLimiter;
  /** tells every gateway (this node's included) to forget cached answers for these tokens or users */
  invalidate(what: IdentityInvalidation): Promise<void>;
}

export function identityDeps(broker: ServiceBroker): IdentityDeps {
  const kernel = kernelOf(broker);
  const env = kernel.config.env;
  return {
    env,
    db: kernel.db,
    models: identityModels(kernel.db),
    limiter: new LoginLimiter(kernel.cache, {
      perAccount: env.LOGIN_FAILURES_PER_ACCOUNT,
      perAddress: env.LOGIN_FAILURES_PER_ADDRESS,
      windowSeconds: env.LOGIN_FAILURE_WINDOW_SECONDS,
    }),
    invalidate: (what) => broker.broadcast(IDENTITY_INVALIDATED_EVENT, what),
  };
}

/** The caller's address as the gateway recorded it ('unknown' for calls that did not come over HTTP). */
export function clientAddressOf(meta: unknown): string {
  const ip = (meta as { client_ip?: unknown } | undefined)?.client_ip;
  return typeof ip === 'string' && ip ? ip : 'unknown';
}
