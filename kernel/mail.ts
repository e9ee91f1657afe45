import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config/load.ts';

/**
 * Outbound email, one way for every package (the notify node, reports): a nodemailer SMTP
 * transport from the SMTP_* settings, or null while email is not configured (EMAIL_ENABLED
 * false or no SMTP_HOST): then email is unavailable and everything else keeps working.
 */
export interface Mailer {
  from: string;
  transport: Transporter;
}

export function mailerFrom(env: Config['env']): Mailer | null {
  if (!env.EMAIL_ENABLED || !env.SMTP_HOST) return null;
  const transport = nodemailer.createTransport({
    host: env.SMTP_HOST,
    port: env.SMTP_PORT,
    secure: env.SMTP_SECURE,
    auth: env.SMTP_USER ? { user: env.SMTP_USER, pass: env.SMTP_PASSWORD } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return { from: env.SMTP_FROM || `no-reply@${env.SMTP_HOST}`, transport };
}
