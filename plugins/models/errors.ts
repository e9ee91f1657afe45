import { defineError } from '../../kernel/errors/define.ts';

/** The models package's own error codes (stable API: never reuse or rename one; documented in README.md and docs/errors.md). */
export const MODELS_ERR = {
  NO_KEY: defineError({ code: 'MODELS_ERR_NO_KEY', status: 422, title: 'The entity has no default model provider key' }),
  KEY_UNREADABLE: defineError({ code: 'MODELS_ERR_KEY_UNREADABLE', status: 409, title: 'The stored provider key cannot be decrypted with this deployment\'s SECRET_KEY' }),
  PROVIDER_REJECTED_KEY: defineError({ code: 'MODELS_ERR_PROVIDER_REJECTED_KEY', status: 502, title: 'The model provider rejected the key' }),
  PROVIDER: defineError({ code: 'MODELS_ERR_PROVIDER', status: 502, title: 'The model provider failed' }),
  BASE_URL_BLOCKED: defineError({ code: 'MODELS_ERR_BASE_URL_BLOCKED', status: 422, title: 'The key\'s base URL points at an address this deployment refuses' }),
  OUTPUT_INVALID: defineError({ code: 'MODELS_ERR_OUTPUT_INVALID', status: 502, title: 'The model\'s answer does not match the requested output schema' }),
  PROVIDER_TIMEOUT: defineError({ code: 'MODELS_ERR_PROVIDER_TIMEOUT', status: 504, title: 'The model provider did not answer in time', retryable: true }),
};
