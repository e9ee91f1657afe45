import { defineError } from '../../kernel/errors/define.ts';

/** The sandbox's own error codes (stable API: never reuse or rename one); SANDBOX_FAILURES lists them for callers. */
export const SANDBOX_ERR = {
  SYNTAX: defineError({ code: 'SANDBOX_ERR_SYNTAX', status: 422, title: 'The code does not parse' }),
  RUNTIME: defineError({ code: 'SANDBOX_ERR_RUNTIME', status: 422, title: 'The code threw an error' }),
  TIME_LIMIT: defineError({ code: 'SANDBOX_ERR_TIME_LIMIT', status: 422, title: 'The code ran past its time limit' }),
  MEMORY_LIMIT: defineError({ code: 'SANDBOX_ERR_MEMORY_LIMIT', status: 422, title: 'The code used more memory than its limit' }),
  OUTPUT_TOO_LARGE: defineError({ code: 'SANDBOX_ERR_OUTPUT_TOO_LARGE', status: 422, title: 'The result is larger than the output limit' }),
  OUTPUT_NOT_JSON: defineError({ code: 'SANDBOX_ERR_OUTPUT_NOT_JSON', status: 422, title: 'The result is not a JSON value' }),
  INPUT_TOO_LARGE: defineError({ code: 'SANDBOX_ERR_INPUT_TOO_LARGE', status: 422, title: 'The input is larger than the input limit' }),
  LANGUAGE_UNAVAILABLE: defineError({ code: 'SANDBOX_ERR_LANGUAGE_UNAVAILABLE', status: 422, title: 'No sandbox driver for this language is configured' }),
  CANCELLED: defineError({ code: 'SANDBOX_ERR_CANCELLED', status: 409, title: 'The run was cancelled' }),
  BUSY: defineError({ code: 'SANDBOX_ERR_BUSY', status: 503, title: 'Too many sandbox runs are waiting', retryable: true }),
  CONTAINER: defineError({ code: 'SANDBOX_ERR_CONTAINER', status: 502, title: 'The container engine failed' }),
};
