import { DataTypes, type Model, type ModelAttributes, type ModelStatic, type Sequelize } from 'sequelize';
import { defineTenantModel } from '../../../kernel/tenancy/tenant-model.ts';

import { USER_ROLES, type Role } from '../../../kernel/tenancy/roles.ts';

export type { Role };
export type UserStatus = 'active' | 'deactivated';
export const ROLES: readonly Role[] = USER_ROLES;
export const USER_STATUSES: UserStatus[] = ['active', 'deactivated'];

export interface UserAttributes {
  id: string;
  entity_id: string;
  email: string;
  name: string;
  role: Role;
  status: UserStatus;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

export interface EntityAttributes {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export type UserModel = Model<UserAttributes, Partial<UserAttributes>> & UserAttributes;
export type EntityModel = Model<EntityAttributes, Partial<EntityAttributes>> & EntityAttributes;

export interface IdentityModels {
  User: ModelStatic<UserModel>;
  Entity: ModelStatic<EntityModel>;
}

const defined = new WeakMap<Sequelize, IdentityModels>();

/**
 * The package's models on the shared Sequelize instance (defined once per instance). Users are
 * tenant-scoped: every query must name an entity. The password hash is left out of every read
 * unless asked for with the `withPassword` scope. Model names are prefixed so they cannot clash
 * with another package's.
 */
export function identityModels(sequelize: Sequelize): IdentityModels {
  const known = defined.get(sequelize);
  if (known) return known;
  const Entity = sequelize.define<EntityModel>(
    'auth_entity',
    { id: { type: DataTypes.STRING(64), primaryKey: true }, name: { type: DataTypes.STRING(200), allowNull: false } } as ModelAttributes<EntityModel>,
    { tableName: 'entities', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  );
  const User = defineTenantModel<UserModel>(
    sequelize,
    'auth_user',
    {
      id: { type: DataTypes.STRING(64), primaryKey: true },
      email: { type: DataTypes.STRING(254), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false, defaultValue: '' },
      role: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      password_hash: { type: DataTypes.TEXT, allowNull: false },
      last_login_at: { type: DataTypes.DATE, allowNull: true },
    },
    {
      tableName: 'users',
      defaultScope: { attributes: { exclude: ['password_hash'] } },
      scopes: { withPassword: { attributes: { include: ['password_hash'] } } },
    },
  );
  const models = { User, Entity };
  defined.set(sequelize, models);
  return models;
}
