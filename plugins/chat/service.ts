import type { ActionSchema, Service } from 'moleculer';
import type { Sequelize } from 'sequelize';
import type { Config } from '../../config/load.ts';
import type { PooledSql } from '../../kernel/db/pooled-sql.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';

/** The service instance the actions run on; `created()` sets these. */
export interface ChatService extends Service {
  db: Sequelize;
  /** the hot path's statements (a message taken, settled, read back) on the pooled connections */
  sql: PooledSql;
  env: Config['env'];
}

export type ChatAction = Omit<ActionSchema<ChatService>, 'rest'> & ActionDocKeys & { rest?: RestDeclaration; accepts?: string[] };
