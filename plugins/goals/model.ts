import { DataTypes, type Model, type ModelStatic, type Optional, type Sequelize } from 'sequelize';
import { defineTenantModel } from '../../kernel/tenancy/tenant-model.ts';
import type { PlanView } from '../../kernel/agents-contract.ts';

export const GOAL_STATUSES = ['active', 'achieved', 'abandoned'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const METRIC_DIRECTIONS = ['increase', 'decrease'] as const;

export interface GoalMetric {
  name: string;
  target: number;
  unit: string | null;
  current: number | null;
  direction: (typeof METRIC_DIRECTIONS)[number];
}

export interface GoalAttributes {
  id: string;
  entity_id: string;
  workspace_id: string;
  title: string;
  objective: string;
  metrics: GoalMetric[];
  status: GoalStatus;
  agent_id: string | null;
  due_at: Date | null;
  created_by: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

type GoalCreation = Optional<GoalAttributes, 'metrics' | 'status' | 'agent_id' | 'due_at' | 'created_by' | 'version' | 'created_at' | 'updated_at'>;
export interface GoalRow extends Model<GoalAttributes, GoalCreation>, GoalAttributes {}

/** The stored row: the contract's view (kernel/agents-contract.ts) with timestamps as dates. */
export type PlanAttributes = Omit<PlanView, 'decided_at' | 'created_at' | 'updated_at'> & { decided_at: Date | null; created_at: Date; updated_at: Date };

type PlanCreation = Optional<PlanAttributes, 'goal_id' | 'task_id' | 'run_id' | 'decided_by' | 'decided_at' | 'decision_comment' | 'created_by' | 'version' | 'created_at' | 'updated_at'>;
export type PlanRow = Model<PlanAttributes, PlanCreation> & PlanAttributes;

export interface GoalsModels {
  Goal: ModelStatic<GoalRow>;
  Plan: ModelStatic<PlanRow>;
}

/** The package's models on the shared Sequelize instance (defined again on each load of the package). */
export function defineGoalsModels(sequelize: Sequelize): GoalsModels {
  const Goal = defineTenantModel<GoalRow>(
    sequelize,
    'goal',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      workspace_id: { type: DataTypes.UUID, allowNull: false },
      title: { type: DataTypes.STRING(200), allowNull: false },
      objective: { type: DataTypes.TEXT, allowNull: false },
      metrics: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      agent_id: { type: DataTypes.UUID, allowNull: true },
      due_at: { type: DataTypes.DATE, allowNull: true },
      created_by: { type: DataTypes.STRING(128), allowNull: true },
      version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    } as never,
    { tableName: 'goals', version: true },
  );
  const Plan = defineTenantModel<PlanRow>(
    sequelize,
    'plan',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      workspace_id: { type: DataTypes.UUID, allowNull: false },
      goal_id: { type: DataTypes.UUID, allowNull: true },
      task_id: { type: DataTypes.UUID, allowNull: true },
      agent_id: { type: DataTypes.UUID, allowNull: false },
      run_id: { type: DataTypes.STRING(64), allowNull: true },
      summary: { type: DataTypes.TEXT, allowNull: false },
      steps: { type: DataTypes.JSONB, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      requires_approval: { type: DataTypes.BOOLEAN, allowNull: false },
      decided_by: { type: DataTypes.STRING(128), allowNull: true },
      decided_at: { type: DataTypes.DATE, allowNull: true },
      decision_comment: { type: DataTypes.TEXT, allowNull: true },
      created_by: { type: DataTypes.STRING(128), allowNull: true },
      version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    } as never,
    { tableName: 'plans', version: true },
  );
  return { Goal, Plan };
}
