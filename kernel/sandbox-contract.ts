/**
 * The sandbox service (sandbox/runner), asked through the broker: it runs a snippet of code
 * in a fresh isolated context and answers its JSON result. Callers never run user code in
 * their own process's isolate; they call SANDBOX_RUN_ACTION wherever it is served.
 *
 *   const out = await ctx.call<SandboxRunResult, SandboxRunParams>(SANDBOX_RUN_ACTION, {
 *     language: 'javascript', code: 'return input.a + 1', input: { a: 1 },
 *     execution_id: `${runId}:${stepId}`, timeout_ms: 5000,
 *   });                                                     // { result: 2, logs: [], ... }
 *   ctx.broadcast(SANDBOX_CANCEL_EVENT, { execution_id });  // stops it wherever it runs
 *
 * JavaScript is the body of an async function: `input` is bound, `return` gives the result,
 * `console.log` lines are collected (capped). No `require`, no files, no network, no process,
 * no timers. Other languages run in a container and only where a Docker engine is configured.
 *
 * Failures are kernel errors (problem+json on the HTTP route) whose codes are listed in
 * SANDBOX_FAILURES: a failed step of a workflow records the same code.
 */

export const SANDBOX_RUN_ACTION = 'sandbox.run';
/** answers SandboxStatus of the node that serves it */
export const SANDBOX_STATUS_ACTION = 'sandbox.status';
/** broadcast `{execution_id}`: the node running that execution stops it (SANDBOX_ERR_CANCELLED) */
export const SANDBOX_CANCEL_EVENT = 'sandbox.cancel';

/** Every language a sandbox driver may offer; `javascript` is always there (isolated-vm). */
export const SANDBOX_LANGUAGES = ['javascript', 'python', 'shell'] as const;
export type SandboxLanguage = (typeof SANDBOX_LANGUAGES)[number];
/** Languages that need the container driver (a configured Docker engine). */
export const CONTAINER_LANGUAGES: readonly SandboxLanguage[] = ['python', 'shell'];

/**
 * How the snippet sees its input. `plain`: `input` (and `console`). `n8n`: an n8n Code node's
 * `$json`, `$input`, `$()` and `items`, Luxon's `DateTime` (`$now`, `$today`), `$itemIndex`,
 * `$runIndex`, `$workflow`, `$execution` and the data transformation functions of its
 * expressions, built from an input `{mode: 'all' | 'each', items, item?, index?, origin?, nodes:
 * {<node name>: items}, zone?, run_index?, workflow?, execution?}` (N8nCodeInput). Dialects are preludes the
 * sandbox adds under their own name, so a caller only names the dialect.
 */
export const SANDBOX_DIALECTS = ['plain', 'n8n'] as const;

/**
 * n8n's data transformation functions (`{{ $json.email.isEmpty() }}`) the n8n dialect
 * implements, by the type of value they are called on (n8n offers them in expressions only, not
 * in its Code node). The importer rewrites such a call in a computing expression into a call
 * of N8N_EXTEND_FUNCTION, which picks the function by the value's type at run time (a native
 * method of the value when the type has no such function: `.includes()`, `.keys()` on an array).
 */
export const N8N_EXTENSION_METHODS = {
  string: ['isEmpty', 'isNotEmpty', 'isEmail', 'extractEmail', 'removeTags', 'toNumber', 'toInt', 'toWholeNumber', 'toFloat', 'toDecimalNumber', 'toBoolean', 'toDateTime', 'parseJson', 'toJsonString'],
  array: ['isEmpty', 'isNotEmpty', 'first', 'last', 'sum', 'average', 'min', 'max', 'unique', 'removeDuplicates', 'chunk', 'difference', 'intersection', 'union', 'append', 'randomItem', 'toJsonString'],
  number: ['round', 'ceil', 'floor', 'abs', 'isEven', 'isOdd', 'isInteger', 'toBoolean', 'toDateTime', 'format', 'toJsonString'],
  boolean: ['toNumber', 'toJsonString'],
  object: ['isEmpty', 'isNotEmpty', 'hasField', 'keys', 'values', 'removeField', 'merge', 'toJsonString'],
  /** a Luxon DateTime, or a JavaScript Date (whose results that are dates are Dates again) */
  date: ['format', 'plus', 'minus', 'toDateTime', 'beginningOf', 'endOfMonth', 'extract', 'isWeekend', 'isBetween', 'isDst', 'isInLast'],
} as const satisfies Record<string, readonly string[]>;
/** `$__ext(value, name, args, optional)`: the n8n dialect's dispatcher for N8N_EXTENSION_METHODS. */
export const N8N_EXTEND_FUNCTION = '$__ext';

/** The input of a snippet in the n8n dialect. */
export interface N8nCodeInput {
  /** all: the code runs once for every item; each: once per item (`item` is the current one) */
  mode: 'all' | 'each';
  items: unknown[];
  item?: unknown;
  index?: number;
  /** the current item's origin index, for `$('Node').item` */
  origin?: number;
  /** the items of the nodes the code names in `$('...')` */
  nodes?: Record<string, unknown>;
  /** the IANA zone of `$now`, `$today` and Luxon's default (n8n's workflow time zone); UTC when absent */
  zone?: string;
  /** `$runIndex`: how many times the node ran before in this run (a loop's iteration); 0 when absent */
  run_index?: number;
  /** `$workflow` (the code node adds `id` and `active`, the run's workflow and whether it runs from a binding) */
  workflow?: { id?: string | null; name?: string | null; active?: boolean };
  /** `$execution` (the code node adds `id`, the run's) */
  execution?: { id?: string | null };
}
export type SandboxDialect = (typeof SANDBOX_DIALECTS)[number];

/** Longest snippet accepted, in characters. */
export const SANDBOX_MAX_CODE_CHARS = 100_000;

export interface SandboxRunParams {
  language?: SandboxLanguage;
  code: string;
  /** any JSON value; at most SANDBOX_MAX_INPUT_BYTES once serialised */
  input?: unknown;
  dialect?: SandboxDialect;
  /** lowers the sandbox's own time limit (SANDBOX_TIMEOUT_SECONDS), never raises it */
  timeout_ms?: number;
  /** names the execution for SANDBOX_CANCEL_EVENT (e.g. `<run id>:<step id>`) */
  execution_id?: string;
  /** who asked (for the log): the entity the code runs for */
  entity_id?: string;
}

export interface SandboxRunResult {
  language: SandboxLanguage;
  /** the snippet's JSON result (`undefined` becomes null) */
  result: unknown;
  /** console output, at most 100 lines of 1,000 characters each */
  logs: string[];
  duration_ms: number;
}

export interface SandboxStatus {
  languages: SandboxLanguage[];
  running: number;
  waiting: number;
}

/** The codes a run may fail with (besides VALIDATION_FAILED for malformed params). */
export const SANDBOX_FAILURES = [
  'SANDBOX_ERR_SYNTAX',
  'SANDBOX_ERR_RUNTIME',
  'SANDBOX_ERR_TIME_LIMIT',
  'SANDBOX_ERR_MEMORY_LIMIT',
  'SANDBOX_ERR_OUTPUT_TOO_LARGE',
  'SANDBOX_ERR_OUTPUT_NOT_JSON',
  'SANDBOX_ERR_INPUT_TOO_LARGE',
  'SANDBOX_ERR_LANGUAGE_UNAVAILABLE',
  'SANDBOX_ERR_CANCELLED',
  'SANDBOX_ERR_BUSY',
  'SANDBOX_ERR_CONTAINER',
] as const;
export type SandboxFailure = (typeof SANDBOX_FAILURES)[number];
