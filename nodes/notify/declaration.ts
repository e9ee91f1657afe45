import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { TIMEOUT_SCHEMA } from '../../kernel/nodes/model-step.ts';
import { NOTIFICATION_MESSAGE_MAX, NOTIFICATION_TITLE_MAX } from '../../kernel/notifications-contract.ts';

/** Channels the notify node speaks; channel adapters (botapp, sms-voice, ...) join here when they land. */
export const NOTIFY_CHANNELS = ['in_app', 'email'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];
/** Recipients of one email step. */
export const MAX_EMAIL_RECIPIENTS = 50;

export const notifyNodeType: NodeTypeDeclaration = {
  type: 'notify',
  version: 1,
  category: 'action',
  title: 'Notify',
  description:
    "Sends `message` on `channel`: `in_app` adds it to the entity's notifications (GET /api/v1/notifications), scoped to the run's workspace; `email` sends it to `to` through the configured SMTP server (EMAIL_ENABLED, SMTP_HOST), else the step fails with EMAIL_UNAVAILABLE. Not idempotent: a step in flight when its worker died is reconciled, never sent twice.",
  config_schema: {
    type: 'object',
    properties: {
      channel: { type: 'string', enum: [...NOTIFY_CHANNELS], default: 'in_app', description: 'Where the message goes.', examples: ['email'] },
      message: { type: 'string', minLength: 1, maxLength: NOTIFICATION_MESSAGE_MAX, description: 'The text (templates allowed).', examples: ['Invoice {{trigger.number}} is overdue by {{check.output.days}} days.'] },
      title: { type: 'string', minLength: 1, maxLength: NOTIFICATION_TITLE_MAX, default: 'Workflow notification', description: 'The notification title, or the email subject.', examples: ['Invoice overdue'] },
      to: {
        type: 'array',
        items: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\s@<>,;]+@[^\\s@<>,;]+$' },
        minItems: 1,
        maxItems: MAX_EMAIL_RECIPIENTS,
        description: 'Email recipients (channel email only, required there).',
        examples: [['billing@example.com']],
      },
      timeout: { ...TIMEOUT_SCHEMA, description: 'Seconds the step may take (null: no outer deadline; the SMTP connection has its own timeouts).' },
    },
    required: ['message'],
    additionalProperties: false,
    if: { properties: { channel: { const: 'email' } }, required: ['channel'] },
    then: { required: ['to'] },
  },
  outputs: ['main'],
  uncertain_effect: true,
  side_effect: 'non_idempotent',
};
