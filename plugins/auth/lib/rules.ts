import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.ts';
import { ROLES, USER_STATUSES } from './models.ts';

/** fastest-validator rules shared by the actions. */
/**
 * An address is something@somewhere, without a dot required after the @: a self-hosted server's
 * first owner is admin@localhost. Stored trimmed and in lower case.
 */
export const EMAIL_RULE = {
  type: 'string',
  trim: true,
  lowercase: true,
  min: 3,
  max: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  messages: { stringPattern: "The '{field}' field must be an email address (name@domain)." },
} as const;
export const NEW_PASSWORD_RULE = { type: 'string', min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH } as const;
/** At login any stored password may be presented; the length rules are for new passwords. */
export const LOGIN_PASSWORD_RULE = { type: 'string', min: 1, max: PASSWORD_MAX_LENGTH } as const;
export const USER_NAME_RULE = { type: 'string', trim: true, min: 1, max: 200 } as const;
export const ENTITY_NAME_RULE = { type: 'string', trim: true, min: 1, max: 200 } as const;
export const ROLE_RULE = { type: 'enum', values: ROLES } as const;
export const STATUS_RULE = { type: 'enum', values: USER_STATUSES } as const;
export const ID_RULE = { type: 'uuid' } as const;

/** Emails are kept trimmed and in lower case: one address, one account, whatever its case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The name a user gets when none is given: the part of the address before the @. */
export function defaultName(email: string): string {
  return (email.split('@')[0] || email).slice(0, 200);
}
