import { defineError } from './define.ts';

/**
 * Every error code the kernel itself raises. Codes are stable API: never reuse or rename one.
 * docs/errors.md documents each (a test keeps the two in step). Packages define their own
 * codes next to their code with the same `defineError`, prefixed by their package.
 */
export const ERRORS = {
  // HTTP surface
  BAD_REQUEST: defineError({ code: 'BAD_REQUEST', status: 400, title: 'Bad request' }),
  MALFORMED_JSON: defineError({ code: 'MALFORMED_JSON', status: 400, title: 'Malformed JSON body' }),
  UNAUTHORIZED: defineError({ code: 'UNAUTHORIZED', status: 401, title: 'Authentication required' }),
  FORBIDDEN: defineError({ code: 'FORBIDDEN', status: 403, title: 'Forbidden' }),
  WORKER_ROUTES_DISABLED: defineError({ code: 'WORKER_ROUTES_DISABLED', status: 403, title: 'Worker routes are disabled' }),
  NOT_FOUND: defineError({ code: 'NOT_FOUND', status: 404, title: 'Not found' }),
  ROUTE_NOT_FOUND: defineError({ code: 'ROUTE_NOT_FOUND', status: 404, title: 'No such route' }),
  METHOD_NOT_ALLOWED: defineError({ code: 'METHOD_NOT_ALLOWED', status: 405, title: 'Method not allowed' }),
  CONFLICT: defineError({ code: 'CONFLICT', status: 409, title: 'Conflict' }),
  PAYLOAD_TOO_LARGE: defineError({ code: 'PAYLOAD_TOO_LARGE', status: 413, title: 'Payload too large' }),
  UNSUPPORTED_MEDIA_TYPE: defineError({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, title: 'Unsupported media type' }),
  VALIDATION_FAILED: defineError<{ field: string; message: string; type: string }[]>({ code: 'VALIDATION_FAILED', status: 422, title: 'Validation failed' }),
  RATE_LIMITED: defineError({ code: 'RATE_LIMITED', status: 429, title: 'Too many requests', retryable: true }),
  INTERNAL_ERROR: defineError({ code: 'INTERNAL_ERROR', status: 500, title: 'Internal server error' }),
  SERVICE_UNAVAILABLE: defineError({ code: 'SERVICE_UNAVAILABLE', status: 503, title: 'Service unavailable', retryable: true }),
  TIMEOUT: defineError({ code: 'TIMEOUT', status: 504, title: 'The request timed out', retryable: true }),
  // Idempotency-Key (kernel/gateway/idempotency.ts)
  IDEMPOTENCY_KEY_INVALID: defineError({ code: 'IDEMPOTENCY_KEY_INVALID', status: 400, title: 'Invalid Idempotency-Key header' }),
  IDEMPOTENCY_KEY_IN_FLIGHT: defineError({ code: 'IDEMPOTENCY_KEY_IN_FLIGHT', status: 409, title: 'A request with this Idempotency-Key is in progress', retryable: true }),
  IDEMPOTENCY_KEY_REUSED: defineError({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422, title: 'Idempotency-Key reused for another request' }),
  // between an action claiming a key in its own write and the gateway (kernel/idempotency/inline.ts); a client sees it only if the key vanished meanwhile
  IDEMPOTENCY_CLAIM_LOST: defineError({ code: 'IDEMPOTENCY_CLAIM_LOST', status: 409, title: 'The Idempotency-Key is held by an earlier request', retryable: true }),
  WEB_ERR_ORIGIN: defineError({ code: 'WEB_ERR_ORIGIN', status: 403, title: 'Cross-origin request refused' }),
  // Capability packages
  KERNEL_ERR_MANIFEST: defineError({ code: 'KERNEL_ERR_MANIFEST', status: 500, title: 'Invalid capability manifest' }),
  KERNEL_ERR_ENTRY: defineError({ code: 'KERNEL_ERR_ENTRY', status: 500, title: 'Capability entry failed to load' }),
  KERNEL_ERR_CAP_VERSION: defineError({ code: 'KERNEL_ERR_CAP_VERSION', status: 500, title: 'Capability needs another kernel version' }),
  KERNEL_ERR_REQUIRES: defineError({ code: 'KERNEL_ERR_REQUIRES', status: 500, title: 'Capability requires a package that is not loaded' }),
  KERNEL_ERR_ACTION_CLASH: defineError({ code: 'KERNEL_ERR_ACTION_CLASH', status: 500, title: 'Action name already served by another package' }),
  KERNEL_ERR_MIGRATION: defineError({ code: 'KERNEL_ERR_MIGRATION', status: 500, title: 'A package migration failed' }),
} as const;

export type ErrorCode = keyof typeof ERRORS;
