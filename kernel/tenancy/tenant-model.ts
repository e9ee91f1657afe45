import { DataTypes, type Model, type ModelAttributes, type ModelOptions, type ModelStatic, type Sequelize } from 'sequelize';

/**
 * Every tenant-owned table goes through here. The model gets an `entity_id` column and hooks
 * that refuse any find, count, update, destroy or create whose query does not name an
 * entity: a package cannot forget the scope, because the query fails loudly instead of
 * reading another tenant's rows. `tenantRepo` (repo.ts) adds the scope for you.
 */
export function defineTenantModel<M extends Model>(sequelize: Sequelize, name: string, attributes: ModelAttributes<M>, options: ModelOptions<M> = {}): ModelStatic<M> {
  const model = sequelize.define<M>(
    name,
    { entity_id: { type: DataTypes.STRING(64), allowNull: false }, ...attributes } as ModelAttributes<M>,
    { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at', ...options },
  );
  const requireScope = (kind: string) => (opts: { where?: unknown }) => {
    if (!hasEntityScope(opts.where)) throw new TenancyScopeError(`${name}: ${kind} without an entity_id scope`);
  };
  model.addHook('beforeFind', requireScope('find'));
  model.addHook('beforeCount', requireScope('count'));
  model.addHook('beforeBulkUpdate', requireScope('update'));
  model.addHook('beforeBulkDestroy', requireScope('destroy'));
  model.addHook('beforeValidate', (instance: Model, opts: { skip?: string[] }) => {
    // a bulk update validates only the columns it sets (entity_id is skipped, and scoped by beforeBulkUpdate)
    if (opts?.skip?.includes('entity_id')) return;
    if (!instance.get('entity_id')) throw new TenancyScopeError(`${name}: a row without entity_id`);
  });
  return model;
}

export class TenancyScopeError extends Error {
  constructor(message: string) {
    super(`tenancy scope missing: ${message}`);
    this.name = 'TenancyScopeError';
  }
}

function hasEntityScope(where: unknown): boolean {
  if (!where || typeof where !== 'object') return false;
  const value = (where as Record<string, unknown>).entity_id;
  return typeof value === 'string' && value.length > 0;
}
