import { DataTypes, type Model, type ModelStatic, type Optional, type Sequelize } from 'sequelize';
import { defineTenantModel } from '../../kernel/tenancy/tenant-model.ts';

export interface NotificationAttributes {
  id: string;
  entity_id: string;
  workspace_id: string | null;
  /** one user's, or null: everyone of the entity sees it */
  recipient_id: string | null;
  title: string;
  message: string;
  /** where it came from, e.g. `{kind: 'workflow', run_id, step_id}` */
  source: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type Creation = Optional<NotificationAttributes, 'workspace_id' | 'recipient_id' | 'source' | 'read_at' | 'created_at' | 'updated_at'>;
export type NotificationRow = Model<NotificationAttributes, Creation> & NotificationAttributes;

export function defineNotificationModel(sequelize: Sequelize): ModelStatic<NotificationRow> {
  return defineTenantModel<NotificationRow>(sequelize, 'notification', {
    id: { type: DataTypes.UUID, primaryKey: true },
    workspace_id: { type: DataTypes.STRING(64), allowNull: true },
    recipient_id: { type: DataTypes.STRING(128), allowNull: true },
    title: { type: DataTypes.STRING(200), allowNull: false },
    message: { type: DataTypes.TEXT, allowNull: false },
    source: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
    read_at: { type: DataTypes.DATE, allowNull: true },
  }, { tableName: 'notifications' });
}

/** A notification as the API shows it. */
export function notificationView(row: NotificationAttributes): Record<string, unknown> {
  const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
  return {
    id: row.id, workspace_id: row.workspace_id, recipient_id: row.recipient_id, title: row.title, message: row.message,
    source: row.source, read_at: iso(row.read_at), created_at: iso(row.created_at),
  };
}

export const NOTIFICATION_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    workspace_id: { type: ['string', 'null'] },
    recipient_id: { type: ['string', 'null'] },
    title: { type: 'string' },
    message: { type: 'string' },
    source: { type: 'object' },
    read_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'workspace_id', 'recipient_id', 'title', 'message', 'source', 'read_at', 'created_at'],
} as const;
