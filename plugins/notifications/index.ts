import type { Context, Service } from 'moleculer';
import { Op, type ModelStatic, type WhereOptions } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { kernelOf } from '../../kernel/context.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { NOTIFICATION_MESSAGE_MAX, NOTIFICATION_TITLE_MAX, type CreateNotificationParams } from '../../kernel/notifications-contract.ts';
import { newId } from '../../kernel/tenancy/ids.ts';
import { identityOf } from '../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../kernel/tenancy/paging.ts';
import { tenantRepo } from '../../kernel/tenancy/repo.ts';
import { WORKSPACE_DELETED_EVENT, type WorkspaceDeletedPayload } from '../../kernel/workspace-contracts.ts';
import { defineNotificationModel, NOTIFICATION_SCHEMA, notificationView, type NotificationAttributes, type NotificationRow } from './model.ts';

type NotificationsService = Service & { Notification: ModelStatic<NotificationRow> };

/** What the caller may see: the entity's notifications for everyone, and its own. */
function visibleTo(userId: string): WhereOptions {
  return { [Op.or]: [{ recipient_id: null }, { recipient_id: userId }] } as WhereOptions;
}

/**
 * Service `notifications`: the in-app inbox. `notifications.create` (internal) adds one for the
 * caller's entity; `GET /api/v1/notifications` lists what the caller may see (the entity's, and
 * those addressed to the caller), newest first; `POST /api/v1/notifications/{id}/read` marks one
 * read. A deleted workspace takes its notifications with it.
 */
export default {
  name: 'notifications',
  actions: {
    create: {
      visibility: 'public',
      params: {
        workspace_id: { type: 'string', min: 1, max: 64, optional: true, nullable: true },
        recipient_id: { type: 'string', min: 1, max: 128, optional: true, nullable: true },
        title: { type: 'string', min: 1, max: NOTIFICATION_TITLE_MAX },
        message: { type: 'string', min: 1, max: NOTIFICATION_MESSAGE_MAX },
        source: { type: 'object', optional: true },
      },
      async handler(this: NotificationsService, ctx: Context<CreateNotificationParams>) {
        const p = ctx.params;
        const row = await tenantRepo(this.Notification, 'notification').create(ctx, {
          id: newId(), workspace_id: p.workspace_id ?? null, recipient_id: p.recipient_id ?? null, title: p.title, message: p.message, source: p.source ?? {},
        });
        return notificationView(row.get({ plain: true }) as NotificationAttributes);
      },
    },
    list: {
      rest: 'GET /',
      summary: 'List in-app notifications',
      description: "The caller's entity-wide notifications and those addressed to the caller, newest first; `unread=true` keeps the unread ones, `workspace_id` one workspace's.",
      tags: ['notifications'],
      params: {
        ...PAGING_PARAMS,
        unread: { type: 'boolean', convert: true, optional: true },
        workspace_id: { type: 'string', min: 1, max: 64, optional: true },
      },
      response: pageSchema(NOTIFICATION_SCHEMA as never),
      async handler(this: NotificationsService, ctx: Context<{ limit: number; offset: number; unread?: boolean; workspace_id?: string }>) {
        const who = identityOf(ctx);
        const where: Record<string | symbol, unknown> = { ...(visibleTo(who.id) as object) };
        if (ctx.params.unread) where.read_at = null;
        if (ctx.params.workspace_id) where.workspace_id = ctx.params.workspace_id;
        const page = await tenantRepo(this.Notification, 'notification').pageRows<NotificationAttributes>(ctx, {
          where: where as WhereOptions, order: [['created_at', 'DESC'], ['id', 'DESC']], limit: ctx.params.limit, offset: ctx.params.offset,
        });
        return { ...page, items: page.items.map(notificationView) };
      },
    },
    read: {
      rest: 'POST /:id/read',
      // marking one's own inbox read changes nothing of the entity's (docs/roles.md)
      role: 'viewer',
      summary: 'Mark a notification read',
      description: 'Idempotent: a notification read before keeps its first read time. Another entity\'s, or another user\'s, is 404.',
      tags: ['notifications'],
      params: { id: { type: 'string', min: 1, max: 64 } },
      response: NOTIFICATION_SCHEMA,
      async handler(this: NotificationsService, ctx: Context<{ id: string }>) {
        const who = identityOf(ctx);
        const id = ctx.params.id.toLowerCase();
        const notFound = () => ERRORS.NOT_FOUND(`No notification with id '${ctx.params.id}'.`, { resource: 'notification', id: ctx.params.id });
        if (!isUuid(id)) throw notFound();
        const row = await tenantRepo(this.Notification, 'notification').find(ctx, id);
        if (!row || (row.recipient_id !== null && row.recipient_id !== who.id)) throw notFound();
        if (row.read_at === null) await row.update({ read_at: new Date() });
        return notificationView(row.get({ plain: true }) as NotificationAttributes);
      },
    },
  },
  events: {
    async [WORKSPACE_DELETED_EVENT](this: NotificationsService, ctx: Context<WorkspaceDeletedPayload>) {
      await this.Notification.destroy({ where: { entity_id: ctx.params.entity_id, workspace_id: ctx.params.workspace_id } });
    },
  },
  created(this: NotificationsService) {
    this.Notification = defineNotificationModel(kernelOf(this.broker).db);
  },
};
