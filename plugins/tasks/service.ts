import type { ActionSchema, Context, Service } from 'moleculer';
import type { Sequelize } from 'sequelize';
import { kernelOf } from '../../kernel/context.ts';
import { lazyPooledSql, type PooledSql } from '../../kernel/db/pooled-sql.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';
import { identityOf } from '../../kernel/tenancy/identity.ts';
import type { Actor } from './db/task-store.ts';

/** What the actions of this package's services share: their type and the shared database. */
export type TasksAction = ActionSchema<Service> & ActionDocKeys & { rest?: RestDeclaration };

export function dbOf(svc: Service): Sequelize {
  return kernelOf(svc.broker).db;
}

const pooled = new WeakMap<Service, () => PooledSql>();

/** Pooled raw SQL on the shared database, for the hot writes (statements prepared on a real PostgreSQL). */
export function sqlOf(svc: Service): PooledSql {
  let sql = pooled.get(svc);
  if (!sql) {
    sql = lazyPooledSql(() => ({ db: kernelOf(svc.broker).db, embedded: kernelOf(svc.broker).config.embedded.database }));
    pooled.set(svc, sql);
  }
  return sql();
}

/** The calling user as the actor of a change. */
export function userActor(ctx: Context): Actor {
  return { type: 'user', id: identityOf(ctx).id };
}

/** Emits after the change committed; a listener failing never undoes the change. */
export function emitAfterCommit(ctx: Context, event: string, payload: Record<string, unknown>): void {
  void Promise.resolve(ctx.emit(event, payload)).catch((err: unknown) => ctx.service?.logger.warn({ err, event }, 'emitting a task event failed'));
}

/** `ctx.meta.$statusCode` for a created resource. */
export function created(ctx: Context): void {
  (ctx.meta as { $statusCode?: number }).$statusCode = 201;
}
