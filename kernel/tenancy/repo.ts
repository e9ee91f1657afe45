import type { Context } from 'moleculer';
import { literal, type FindOptions, type Model, type ModelStatic, type Transaction, type WhereOptions, type CreationAttributes } from 'sequelize';
import { ERRORS } from '../errors/catalogue.ts';
import { entityOf } from './identity.ts';

const TOTAL = '__total';

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/**
 * Data access for one tenant-owned model, always within the caller's entity: a record of
 * another entity is simply not found (404), so its existence does not leak.
 */
export function tenantRepo<M extends Model>(model: ModelStatic<M>, label: string) {
  const scope = (entityId: string, where: WhereOptions = {}): WhereOptions => ({ ...(where as object), entity_id: entityId });
  return {
    async page(ctx: Context | string, opts: { where?: WhereOptions; order?: FindOptions['order']; limit: number; offset: number }): Promise<Page<M>> {
      const entityId = typeof ctx === 'string' ? ctx : entityOf(ctx);
      const { rows, count } = await model.findAndCountAll({ where: scope(entityId, opts.where), order: opts.order, limit: opts.limit, offset: opts.offset });
      return { items: rows, total: count, limit: opts.limit, offset: opts.offset };
    },
    /**
     * A page as plain rows in ONE query (the total rides along as a window count), for list
     * routes that only read: no model instances are built. Only when the page is past the end
     * does a second query count the rows. `exclude` names columns never read (a sealed
     * secret), taken out of the model's columns or of `attributes`.
     */
    async pageRows<R = Record<string, unknown>>(
      ctx: Context | string,
      opts: { where?: WhereOptions; order?: FindOptions['order']; limit: number; offset: number; attributes?: string[]; exclude?: string[] },
    ): Promise<Page<R>> {
      const entityId = typeof ctx === 'string' ? ctx : entityOf(ctx);
      const where = scope(entityId, opts.where);
      const columns = (opts.attributes ?? Object.keys(model.getAttributes())).filter((c) => !opts.exclude?.includes(c));
      const attributes = [...columns, [literal('count(*) OVER ()'), TOTAL]] as FindOptions['attributes'];
      const rows = (await model.findAll({ where, order: opts.order, limit: opts.limit, offset: opts.offset, attributes, raw: true })) as unknown as (R & { [TOTAL]: string })[];
      const total = rows.length ? Number(rows[0][TOTAL]) : opts.offset > 0 ? await model.count({ where }) : 0;
      for (const row of rows) delete (row as Record<string, unknown>)[TOTAL];
      return { items: rows as R[], total, limit: opts.limit, offset: opts.offset };
    },
    async find(ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<M | null> {
      const entityId = typeof ctx === 'string' ? ctx : entityOf(ctx);
      return model.findOne({ where: scope(entityId, { id } as WhereOptions), transaction: opts.transaction, lock: opts.lock });
    },
    async get(ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<M> {
      const found = await this.find(ctx, id, opts);
      if (!found) throw ERRORS.NOT_FOUND(`No ${label} with id '${id}'.`, { resource: label, id });
      return found;
    },
    async create(ctx: Context | string, values: Omit<CreationAttributes<M>, 'entity_id'>, opts: { transaction?: Transaction } = {}): Promise<M> {
      const entityId = typeof ctx === 'string' ? ctx : entityOf(ctx);
      return model.create({ ...values, entity_id: entityId } as unknown as CreationAttributes<M>, { transaction: opts.transaction });
    },
    async count(ctx: Context | string, where: WhereOptions = {}): Promise<number> {
      const entityId = typeof ctx === 'string' ? ctx : entityOf(ctx);
      return model.count({ where: scope(entityId, where) });
    },
  };
}
