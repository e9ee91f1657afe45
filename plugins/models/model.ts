import { DataTypes, type Model, type ModelStatic, type Optional, type Sequelize } from 'sequelize';
import { defineTenantModel } from '../../kernel/tenancy/tenant-model.ts';
import type { ModelProvider } from '../../kernel/models-contract.ts';

export interface ApiKeyAttributes {
  id: string;
  entity_id: string;
  name: string;
  provider: ModelProvider;
  /** the raw key sealed with the deployment's SECRET_KEY; never leaves the package */
  sealed_key: string;
  key_prefix: string;
  default_model: string;
  /** the key's own API base URL (user input, SSRF-checked); null: the deployment default */
  base_url: string | null;
  is_default: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  rotated_at: Date | null;
  last_used_at: Date | null;
}

type ApiKeyCreation = Optional<ApiKeyAttributes, 'is_default' | 'base_url' | 'created_by' | 'created_at' | 'updated_at' | 'rotated_at' | 'last_used_at'>;
export interface ApiKeyRow extends Model<ApiKeyAttributes, ApiKeyCreation>, ApiKeyAttributes {}

export interface ModelsModels {
  ApiKey: ModelStatic<ApiKeyRow>;
}

/** The package's models on the shared Sequelize instance (defined again on each load of the package). */
export function defineModelsModels(sequelize: Sequelize): ModelsModels {
  const ApiKey = defineTenantModel<ApiKeyRow>(
    sequelize,
    'model_api_key',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      name: { type: DataTypes.STRING(120), allowNull: false },
      provider: { type: DataTypes.STRING(32), allowNull: false },
      sealed_key: { type: DataTypes.TEXT, allowNull: false },
      key_prefix: { type: DataTypes.STRING(16), allowNull: false },
      default_model: { type: DataTypes.STRING(200), allowNull: false },
      base_url: { type: DataTypes.STRING(2048), allowNull: true },
      is_default: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      created_by: { type: DataTypes.STRING(128), allowNull: true },
      rotated_at: { type: DataTypes.DATE, allowNull: true },
      last_used_at: { type: DataTypes.DATE, allowNull: true },
    } as never,
    { tableName: 'model_api_keys' },
  );
  return { ApiKey };
}
