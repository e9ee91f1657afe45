import { defineError } from '../../../kernel/errors/define.ts';

/** Error codes of the identity package (documented in plugins/auth/README.md). */
export const AUTH_ERR_EMAIL_TAKEN = defineError({ code: 'AUTH_ERR_EMAIL_TAKEN', status: 409, title: 'A user with this email already exists' });
export const AUTH_ERR_LAST_OWNER = defineError({ code: 'AUTH_ERR_LAST_OWNER', status: 409, title: 'The last active owner cannot be demoted or deactivated' });
export const AUTH_ERR_SIGNUP_DISABLED = defineError({ code: 'AUTH_ERR_SIGNUP_DISABLED', status: 403, title: 'Sign-up is disabled on this server' });
