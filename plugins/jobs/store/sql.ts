import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/** Plain SQL on the shared pool with bind parameters: the jobs tables are read in sets, not as model instances. */
export interface Sql {
  rows<T>(sql: string, bind?: unknown[], transaction?: Transaction): Promise<T[]>;
  one<T>(sql: string, bind?: unknown[], transaction?: Transaction): Promise<T | undefined>;
  exec(sql: string, bind?: unknown[], transaction?: Transaction): Promise<number>;
  transaction<T>(work: (t: Transaction) => Promise<T>): Promise<T>;
}

export function sqlOn(db: Sequelize): Sql {
  return {
    async rows<T>(sql: string, bind: unknown[] = [], transaction?: Transaction) {
      return (await db.query(sql, { bind, type: QueryTypes.SELECT, transaction })) as T[];
    },
    async one<T>(sql: string, bind: unknown[] = [], transaction?: Transaction) {
      return ((await db.query(sql, { bind, type: QueryTypes.SELECT, transaction })) as T[])[0];
    },
    async exec(sql: string, bind: unknown[] = [], transaction?: Transaction) {
      const [, meta] = (await db.query(sql, { bind, transaction })) as [unknown, { rowCount?: number } | number];
      return typeof meta === 'number' ? meta : (meta?.rowCount ?? 0);
    },
    transaction: (work) => db.transaction(work),
  };
}
