import type { Context, Service } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { mailerFrom, type Mailer } from '../../kernel/mail.ts';
import { NODE_EXECUTE_PARAMS } from '../../kernel/nodes/contract.ts';
import { callerMeta, NodeStepError, requireContext, type NodeRunContext } from '../../kernel/nodes/model-step.ts';
import { NOTIFICATIONS_CREATE_ACTION, type CreateNotificationParams } from '../../kernel/notifications-contract.ts';
import { notifyNodeType, type NotifyChannel } from './declaration.ts';

interface NotifyConfig {
  channel?: NotifyChannel;
  message: string;
  title?: string;
  to?: string[];
}

type NotifyService = Service & { mailer: Mailer | null };

const DEFAULT_TITLE = 'Workflow notification';

async function inApp(ctx: Context, config: NotifyConfig, context: NodeRunContext): Promise<unknown> {
  const params: CreateNotificationParams = {
    workspace_id: context.workspace_id,
    title: config.title ?? DEFAULT_TITLE,
    message: config.message,
    source: { kind: 'workflow', run_id: context.run_id || null, step_id: context.step_id },
  };
  try {
    const created = await ctx.call<{ id: string }, CreateNotificationParams>(NOTIFICATIONS_CREATE_ACTION, params, { meta: callerMeta(context) });
    return { channel: 'in_app', notification_id: created.id };
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e?.name === 'ServiceNotFoundError' || e?.name === 'ServiceNotAvailableError') throw new NodeStepError('The notifications package is not running on any node: no in-app notification can be stored.', 'NOTIFICATIONS_UNAVAILABLE');
    throw new NodeStepError(`The notification was not stored: ${String(e?.message ?? err).slice(0, 500)}`, 'NOTIFY_FAILED');
  }
}

async function email(mailer: Mailer | null, config: NotifyConfig): Promise<unknown> {
  if (!mailer) throw new NodeStepError('Outbound email is not configured on this deployment (EMAIL_ENABLED and SMTP_HOST); the message was not sent.', 'EMAIL_UNAVAILABLE');
  if (!config.to?.length) throw new NodeStepError('config.to names no recipient.', 'NOTIFY_NO_RECIPIENT');
  try {
    const sent = await mailer.transport.sendMail({ from: mailer.from, to: config.to, subject: config.title ?? DEFAULT_TITLE, text: config.message });
    return { channel: 'email', message_id: sent.messageId ?? null, accepted: (sent.accepted ?? []).map(String), rejected: (sent.rejected ?? []).map(String) };
  } catch (err) {
    // the SMTP server's answer, never the credentials
    throw new NodeStepError(`The email was not sent: ${String((err as Error).message ?? err).slice(0, 500)}`, 'EMAIL_FAILED');
  }
}

/**
 * Workflow node type `notify` (`channel`, `message`): in-app through the notifications package,
 * email through the configured SMTP server. Not idempotent (uncertain_effect): a step in flight
 * when its worker died is marked for reconciliation, never sent again; a cancel cannot take back
 * a message already stored or handed to the SMTP server.
 */
export default {
  name: 'node.notify',
  metadata: { nodeType: notifyNodeType },
  actions: {
    execute: {
      visibility: 'public',
      params: NODE_EXECUTE_PARAMS,
      async handler(this: NotifyService, ctx: Context<{ config: NotifyConfig; context?: unknown }>) {
        const { config } = ctx.params;
        const context = requireContext(ctx.params.context);
        const output = (config.channel ?? 'in_app') === 'email' ? await email(this.mailer, config) : await inApp(ctx, config, context);
        return { output };
      },
    },
  },
  created(this: NotifyService) {
    this.mailer = mailerFrom(kernelOf(this.broker).config.env);
  },
  stopped(this: NotifyService) {
    this.mailer?.transport.close();
  },
};
