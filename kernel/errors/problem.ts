import { ERRORS, type ErrorCode } from './catalogue.ts';
import { definitionOf } from './define.ts';

/** RFC 9457 problem details, as every error response of the API carries them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id?: string;
  errors?: { field: string; message: string; type: string }[];
  [extension: string]: unknown;
}

export interface ProblemResponse {
  status: number;
  body: Problem;
  headers: Record<string, string>;
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: unknown;
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  data?: unknown;
}

/** body-parser's error types, mapped to our codes */
const BODY_PARSER: Record<string, ErrorCode> = {
  'entity.parse.failed': 'MALFORMED_JSON',
  'entity.too.large': 'PAYLOAD_TOO_LARGE',
  'encoding.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
  'charset.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
  'request.aborted': 'BAD_REQUEST',
  'request.size.invalid': 'BAD_REQUEST',
};

/** moleculer and moleculer-web error types, mapped to our codes */
const FRAMEWORK: Record<string, ErrorCode> = {
  VALIDATION_ERROR: 'VALIDATION_FAILED',
  NOT_FOUND: 'ROUTE_NOT_FOUND',
  SERVICE_NOT_FOUND: 'SERVICE_UNAVAILABLE',
  SERVICE_NOT_AVAILABLE: 'SERVICE_UNAVAILABLE',
  REQUEST_TIMEOUT: 'TIMEOUT',
  NO_TOKEN: 'UNAUTHORIZED',
  INVALID_TOKEN: 'UNAUTHORIZED',
  RATE_LIMIT_EXCEEDED: 'RATE_LIMITED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  INVALID_REQUEST_BODY: 'MALFORMED_JSON',
  ORIGIN_NOT_ALLOWED: 'FORBIDDEN',
  ERR_ORIGIN_NOT_ALLOWED: 'FORBIDDEN',
  FORBIDDEN: 'FORBIDDEN',
};

/** a client error that carries only a status gets the generic code of that status */
const BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 422: 'VALIDATION_FAILED', 429: 'RATE_LIMITED', 503: 'SERVICE_UNAVAILABLE', 504: 'TIMEOUT',
};

const byCode = new Map<string, { code: string; status: number; title: string }>(
  Object.values(ERRORS).map((f) => [f.definition.code, f.definition]),
);

/** the codes packages define (`<PACKAGE>_ERR_<NAME>`) */
const PACKAGE_CODE = /^[A-Z][A-Z0-9]*_ERR_[A-Z0-9_]+$/;

export function problemType(code: string): string {
  return `/api/errors#${code.toLowerCase()}`;
}

type FieldError = { field?: string; message?: string; type?: string; actual?: unknown };

function validationErrors(data: unknown): Problem['errors'] {
  if (!Array.isArray(data)) return undefined;
  return (data as FieldError[]).flatMap((d) => {
    if (d.type === 'objectStrict' && typeof d.actual === 'string') {
      // one entry per field the schema does not declare, named like any other field
      return d.actual.split(', ').filter(Boolean).map((key) => {
        const field = d.field ? `${d.field}.${key}` : key;
        return { field, message: `The '${field}' field is not accepted here.`, type: 'unknownField' };
      });
    }
    return [{ field: String(d.field ?? ''), message: String(d.message ?? 'is invalid'), type: String(d.type ?? 'invalid') }];
  });
}

/**
 * Maps any thrown value to a problem response. Known client errors keep their message and
 * data; anything unknown becomes a 500 whose body says nothing about the cause (it is logged
 * with the request id instead).
 */
export function toProblem(err: unknown, requestId?: string): ProblemResponse {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as ErrorLike;
  const type = typeof e.type === 'string' ? e.type : '';
  let code: string | undefined;
  let status: number | undefined;

  if (BODY_PARSER[type]) code = BODY_PARSER[type];
  else if (e.name === 'NotFoundError' && type === 'NOT_FOUND') code = 'ROUTE_NOT_FOUND'; // moleculer-web: no route
  else if (byCode.has(type)) code = type;
  else if (FRAMEWORK[type]) code = FRAMEWORK[type];

  const numeric = [e.code, e.status, e.statusCode].find((v): v is number => typeof v === 'number' && v >= 400 && v <= 599);
  if (code) status = byCode.get(code)!.status;
  else if (numeric && numeric >= 502 && numeric <= 504 && PACKAGE_CODE.test(type)) {
    // a package's own upstream failure (defineError, e.g. MODELS_ERR_PROVIDER 502): its code and
    // message are meant for the caller; it still carries no data fields (a server error)
    code = type;
    status = numeric;
  } else if (numeric && numeric < 500 && /^[A-Z][A-Z0-9_]*$/.test(type)) {
    // a package's own client error (defineError): keep its code
    code = type;
    status = numeric;
  } else if (numeric && BY_STATUS[numeric]) {
    code = BY_STATUS[numeric];
  } else {
    code = 'INTERNAL_ERROR';
  }
  status ??= byCode.get(code)?.status ?? 500;

  const def = byCode.get(code);
  const isServerError = status >= 500;
  const body: Problem = {
    type: problemType(code),
    title: def?.title ?? definitionOf(code)?.title ?? titleFromCode(code),
    status,
    detail: isServerError && code === 'INTERNAL_ERROR' ? 'An unexpected error occurred; quote the request id when reporting it.' : describe(e, def?.title),
    code,
  };
  if (requestId) body.request_id = requestId;
  if (code === 'VALIDATION_FAILED') {
    body.errors = validationErrors(e.data) ?? [];
    body.detail = body.errors.length ? `Invalid field(s): ${body.errors.map((x) => x.field || '(body)').join(', ')}` : body.detail;
  } else if (!isServerError && e.data && typeof e.data === 'object' && !Array.isArray(e.data)) {
    for (const [k, v] of Object.entries(e.data)) if (!(k in body)) body[k] = v;
  }

  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json' };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  if (status === 429 || status === 503) {
    const retry = Number((e.data as { retry_after?: unknown } | undefined)?.retry_after ?? (status === 429 ? 1 : 5));
    headers['Retry-After'] = String(Math.max(1, Math.ceil(retry)));
  }
  return { status, body, headers };
}

function describe(e: ErrorLike, fallback?: string): string {
  if (e.type === 'entity.parse.failed') return 'The request body is not valid JSON.';
  if (e.type === 'entity.too.large') return 'The request body is larger than the configured limit.';
  return typeof e.message === 'string' && e.message ? e.message : (fallback ?? 'Error');
}

function titleFromCode(code: string): string {
  const words = code.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
