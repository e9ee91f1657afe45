import { DataTypes, type Model, type ModelStatic, type Optional, type Sequelize } from 'sequelize';
import { defineTenantModel } from '../../kernel/tenancy/tenant-model.ts';
import type { AgentView } from '../../kernel/agents-contract.ts';

/** The stored row: the contract's view (kernel/agents-contract.ts) with timestamps as dates. */
export type AgentAttributes = Omit<AgentView, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

type AgentCreation = Optional<AgentAttributes, 'description' | 'instructions' | 'api_key_id' | 'model' | 'tools' | 'is_master' | 'status' | 'version' | 'created_by' | 'created_at' | 'updated_at'>;
export type AgentRow = Model<AgentAttributes, AgentCreation> & AgentAttributes;

/** The package's model on the shared Sequelize instance (defined again on each load of the package). */
export function defineAgentModel(sequelize: Sequelize): ModelStatic<AgentRow> {
  return defineTenantModel<AgentRow>(
    sequelize,
    'agent',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      workspace_id: { type: DataTypes.UUID, allowNull: true },
      name: { type: DataTypes.STRING(120), allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      instructions: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      api_key_id: { type: DataTypes.UUID, allowNull: true },
      model: { type: DataTypes.STRING(200), allowNull: true },
      tools: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      max_rounds: { type: DataTypes.INTEGER, allowNull: false },
      is_master: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      created_by: { type: DataTypes.STRING(128), allowNull: true },
      // Sequelize increments it on every save of a changed row (optimistic locking)
      version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    } as never,
    { tableName: 'agents', version: true },
  );
}
