import { DataTypes, type Model, type ModelStatic, type Optional, type Sequelize } from 'sequelize';
import { defineTenantModel } from '../../kernel/tenancy/tenant-model.ts';
import type { ActivityActorType } from '../../kernel/activity.ts';

export type WorkspaceStatus = 'active' | 'paused';
export type ProviderAccess = 'none' | 'granted';

export interface WorkspaceAttributes {
  id: string;
  entity_id: string;
  name: string;
  description: string;
  category: string;
  status: WorkspaceStatus;
  provider_access: ProviderAccess;
  archived_at: Date | null;
  operating_model: Record<string, unknown>;
  governance: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

type WorkspaceCreation = Optional<WorkspaceAttributes, 'description' | 'category' | 'status' | 'provider_access' | 'archived_at' | 'operating_model' | 'governance' | 'created_by' | 'created_at' | 'updated_at' | 'version'>;
export interface WorkspaceRow extends Model<WorkspaceAttributes, WorkspaceCreation>, WorkspaceAttributes {}

export interface ActivityAttributes {
  id: string;
  entity_id: string;
  workspace_id: string;
  actor_type: ActivityActorType;
  actor_id: string;
  kind: string;
  summary: string;
  data: Record<string, unknown>;
  created_at: Date;
}

type ActivityCreation = Optional<ActivityAttributes, 'data' | 'created_at'>;
export interface ActivityRow extends Model<ActivityAttributes, ActivityCreation>, ActivityAttributes {}

export interface WorkspaceModels {
  Workspace: ModelStatic<WorkspaceRow>;
  Activity: ModelStatic<ActivityRow>;
}

/** The package's models on the shared Sequelize instance (defined again on each load of the package). */
export function defineWorkspaceModels(sequelize: Sequelize): WorkspaceModels {
  const Workspace = defineTenantModel<WorkspaceRow>(
    sequelize,
    'workspace',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      name: { type: DataTypes.STRING(120), allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      category: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      provider_access: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'none' },
      archived_at: { type: DataTypes.DATE, allowNull: true },
      operating_model: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      governance: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      created_by: { type: DataTypes.STRING(128), allowNull: true },
      // Sequelize increments it on every save of a changed row (optimistic locking)
      version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    } as never,
    { tableName: 'workspaces', version: true },
  );
  const Activity = defineTenantModel<ActivityRow>(
    sequelize,
    'workspace_activity',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      workspace_id: { type: DataTypes.UUID, allowNull: false },
      actor_type: { type: DataTypes.STRING(16), allowNull: false },
      actor_id: { type: DataTypes.STRING(128), allowNull: false },
      kind: { type: DataTypes.STRING(100), allowNull: false },
      summary: { type: DataTypes.STRING(500), allowNull: false },
      data: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
    } as never,
    { tableName: 'workspace_activity', updatedAt: false },
  );
  refuseChanges(Activity);
  return { Workspace, Activity };
}

/** The activity log is append-only: its rows leave only with their workspace (ON DELETE CASCADE). */
function refuseChanges(model: ModelStatic<ActivityRow>): void {
  const refuse = (what: string) => () => {
    throw new Error(`workspace_activity is append-only: ${what} is not allowed`);
  };
  model.addHook('beforeUpdate', refuse('update'));
  model.addHook('beforeBulkUpdate', refuse('update'));
  model.addHook('beforeDestroy', refuse('delete'));
  model.addHook('beforeBulkDestroy', refuse('delete'));
}
