/**
 * The in-app inbox (plugins/notifications), written through the broker by any package:
 *
 *   const { id } = await ctx.call(NOTIFICATIONS_CREATE_ACTION, { workspace_id, title: 'Invoice overdue', message: '...',
 *     source: { kind: 'workflow', run_id, step_id } }, { meta: { user: { id, entity_id, role } } });
 *
 * The entity is the caller's (`ctx.meta.user`). Read at `GET /api/v1/notifications`.
 */
export const NOTIFICATIONS_CREATE_ACTION = 'notifications.create';

export interface CreateNotificationParams {
  workspace_id?: string | null;
  /** one user of the entity; absent: everyone of the entity sees it */
  recipient_id?: string | null;
  /** 1 to 200 characters */
  title: string;
  /** 1 to 10,000 characters */
  message: string;
  source?: Record<string, unknown>;
}

export const NOTIFICATION_TITLE_MAX = 200;
export const NOTIFICATION_MESSAGE_MAX = 10_000;
