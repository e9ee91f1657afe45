import type { Context } from 'moleculer';
import { DateTime } from 'luxon';
import { validate as isUuid } from 'uuid';
import { AGENTS_RESOLVE_ACTION } from '../../kernel/agents-contract.ts';
import { listExecutors } from '../../kernel/executors/registry.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { EXECUTOR_SERVICE_PREFIX, type CheckProblem, type ContextLink, type ExecutorDeclaration } from '../../kernel/jobs-contract.ts';
import { validateJsonSchema } from '../../kernel/json-schema/validate.ts';
import { isNotFound } from '../../kernel/references.ts';
import { cronScheduleProblems, isKnownZone, MAX_EVERY_SECONDS, MIN_EVERY_SECONDS, type ScheduleKind } from '../../kernel/schedule/schedule.ts';
import { invalid, notFound, type FieldProblem } from './errors.ts';
import { pathProblem as deliverableProblem } from '../../kernel/workspace-file-paths.ts';
import { executorJob } from './executor-job.ts';
import type { JobRow, JobValues, OverlapPolicy } from './store/types.ts';

export interface ScheduleInput {
  kind: ScheduleKind;
  cron?: string | null;
  timezone?: string | null;
  every_seconds?: number | null;
  at?: string | null;
}

export interface JobInput {
  name?: string;
  description?: string | null;
  schedule?: ScheduleInput;
  executor?: string;
  payload_message?: string | null;
  config?: Record<string, unknown>;
  workspace_id?: string | null;
  conversation_id?: string | null;
  agent_id?: string | null;
  goal_id?: string | null;
  deliverables?: string[];
  delete_after_run?: boolean;
  overlap?: OverlapPolicy;
  enabled?: boolean;
}

export const DEFAULT_EXECUTOR = 'agent';

/** What the 422 says about an executor nobody serves (skills are not built yet: said so plainly). */
function executorProblem(name: string, loaded: string[]): FieldProblem {
  const list = loaded.length ? loaded.join(', ') : 'none';
  if (name === 'skill') return { field: 'executor', message: `The 'skill' executor is not available: skills do not exist on this deployment yet. Loaded executors: ${list}.`, type: 'executor' };
  return { field: 'executor', message: `No executor '${name}' is loaded on this deployment. Loaded executors: ${list}.`, type: 'executor' };
}

/** An instant from ISO 8601; without an offset it is wall-clock time in `zone`. */
function parseAt(text: string, zone: string): Date | null {
  const hasOffset = /([Zz]|[+-]\d{2}:?\d{2})$/.test(text);
  const dt = hasOffset ? DateTime.fromISO(text, { setZone: true }) : DateTime.fromISO(text, { zone: isKnownZone(zone) ? zone : 'UTC' });
  return dt.isValid && /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(text) ? dt.toJSDate() : null;
}

export function scheduleValues(s: ScheduleInput, current: JobRow | undefined, now: Date, problems: FieldProblem[]): Pick<JobValues, 'schedule_kind' | 'cron' | 'timezone' | 'every_seconds' | 'at' | 'anchor_at'> {
  const timezone = s.timezone ?? 'UTC';
  const out = { schedule_kind: s.kind, cron: null as string | null, timezone, every_seconds: null as number | null, at: null as Date | null, anchor_at: now };
  if (!isKnownZone(timezone)) problems.push({ field: 'schedule.timezone', message: `The 'schedule.timezone' field must be an IANA time zone such as Europe/Berlin; '${timezone}' is not one.`, type: 'timezone' });
  if (s.kind === 'cron') {
    if (!s.cron) problems.push({ field: 'schedule.cron', message: "The 'schedule.cron' field is required for kind cron.", type: 'required' });
    else {
      problems.push(...cronScheduleProblems(s.cron, timezone, 'schedule.').filter((p) => p.field === 'schedule.cron'));
      out.cron = s.cron.trim().split(/\s+/).join(' ');
    }
  } else if (s.kind === 'every') {
    if (s.every_seconds === undefined || s.every_seconds === null) problems.push({ field: 'schedule.every_seconds', message: "The 'schedule.every_seconds' field is required for kind every.", type: 'required' });
    else if (s.every_seconds < MIN_EVERY_SECONDS || s.every_seconds > MAX_EVERY_SECONDS) {
      problems.push({ field: 'schedule.every_seconds', message: `The 'schedule.every_seconds' field must be between ${MIN_EVERY_SECONDS} (the minimum interval) and ${MAX_EVERY_SECONDS}; got ${s.every_seconds}.`, type: 'numberMin' });
    } else {
      out.every_seconds = s.every_seconds;
      // an unchanged interval keeps its rhythm
      if (current?.schedule_kind === 'every' && current.every_seconds === s.every_seconds) out.anchor_at = new Date(current.anchor_at);
    }
  } else {
    const at = s.at ? parseAt(s.at, timezone) : null;
    if (!s.at) problems.push({ field: 'schedule.at', message: "The 'schedule.at' field is required for kind at.", type: 'required' });
    else if (!at) problems.push({ field: 'schedule.at', message: `The 'schedule.at' field must be an ISO 8601 date-time; '${s.at}' is not one.`, type: 'date' });
    else if (at.getTime() <= now.getTime()) problems.push({ field: 'schedule.at', message: `The 'schedule.at' field is in the past (${at.toISOString()}); a one-shot job needs a future instant.`, type: 'datePast' });
    else out.at = at;
  }
  for (const [key, kind] of [['cron', 'cron'], ['every_seconds', 'every'], ['at', 'at']] as const) {
    if (s.kind !== kind && s[key] !== undefined && s[key] !== null) problems.push({ field: `schedule.${key}`, message: `The 'schedule.${key}' field belongs to kind ${kind}, not ${s.kind}.`, type: 'forbidden' });
  }
  return out;
}

const LINK_LABEL: Record<ContextLink, string> = { workspace_id: 'workspace', conversation_id: 'conversation', agent_id: 'agent', goal_id: 'goal' };

/** 404 naming the field when a context link is not the caller's entity's; 422 when it is unusable. */
async function checkLinks(ctx: Context, values: JobValues, changed: (link: ContextLink) => boolean): Promise<FieldProblem[]> {
  const calls: Record<ContextLink, [string, Record<string, unknown>]> = {
    workspace_id: ['workspaces.resolve', { workspace_id: values.workspace_id }],
    conversation_id: ['chat.listMessages', { conversation_id: values.conversation_id, limit: 1, offset: 0 }],
    agent_id: [AGENTS_RESOLVE_ACTION, { agent_id: values.agent_id }],
    goal_id: ['goals.get', { goal_id: values.goal_id }],
  };
  const problems: FieldProblem[] = [];
  for (const link of Object.keys(calls) as ContextLink[]) {
    const id = values[link];
    if (!id || !changed(link)) continue;
    let found: Record<string, unknown>;
    try {
      found = (await ctx.call(calls[link][0], calls[link][1])) as Record<string, unknown>;
    } catch (err) {
      if (isNotFound(err)) throw notFound(LINK_LABEL[link], id, link);
      if ((err as { code?: number }).code === 503 || (err as { name?: string }).name === 'ServiceNotFoundError') {
        problems.push({ field: link, message: `${LINK_LABEL[link]}s cannot be checked now: the service is not running.`, type: 'reference' });
        continue;
      }
      throw err;
    }
    if (link === 'workspace_id' && found?.archived_at) problems.push({ field: link, message: `Workspace '${id}' is archived (read-only).`, type: 'reference' });
    if ((link === 'goal_id' || link === 'agent_id') && values.workspace_id && found?.workspace_id && found.workspace_id !== values.workspace_id) {
      problems.push({ field: link, message: `The ${LINK_LABEL[link]} '${id}' belongs to another workspace than workspace_id.`, type: 'reference' });
    }
  }
  return problems;
}

function executorFieldProblems(decl: ExecutorDeclaration, values: JobValues): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (decl.needs_prompt && !values.payload_message?.trim()) problems.push({ field: 'payload_message', message: `The '${decl.name}' executor needs a payload_message (what to do).`, type: 'required' });
  for (const link of decl.requires ?? []) if (!values[link]) problems.push({ field: link, message: `The '${decl.name}' executor needs ${link}.`, type: 'required' });
  if (decl.requires_one?.length && !decl.requires_one.some((l) => values[l])) {
    problems.push({ field: decl.requires_one[0], message: `The '${decl.name}' executor needs one of ${decl.requires_one.join(', ')}.`, type: 'required' });
  }
  if (decl.config) {
    for (const p of validateJsonSchema(decl.config, values.config, 'config', { templates: false })) problems.push({ field: p.path || 'config', message: `config: ${p.message}`, type: 'config' });
  } else if (Object.keys(values.config).length) {
    problems.push({ field: 'config', message: `The '${decl.name}' executor takes no config.`, type: 'forbidden' });
  }
  return problems;
}

/**
 * The values a job is saved with: the input over the current row (update) or the defaults
 * (create), each field checked for meaning. 422 naming every wrong field; 404 for a context
 * link (or an executor's reference) of another entity. Nothing is written here.
 */
export async function resolveJob(ctx: Context, input: JobInput, current: JobRow | undefined, now: Date): Promise<{ values: JobValues; executor: ExecutorDeclaration }> {
  const problems: FieldProblem[] = [];
  const pick = <K extends keyof JobInput>(key: K, fallback: NonNullable<JobInput[K]> | null) => (input[key] !== undefined ? input[key] : fallback);
  const schedule = input.schedule
    ? scheduleValues(input.schedule, current, now, problems)
    : current
      ? { schedule_kind: current.schedule_kind, cron: current.cron, timezone: current.timezone, every_seconds: current.every_seconds, at: current.at, anchor_at: new Date(current.anchor_at) }
      : undefined;
  if (!schedule) problems.push({ field: 'schedule', message: "The 'schedule' field is required.", type: 'required' });
  const values: JobValues = {
    name: (pick('name', current?.name ?? null) as string) ?? '',
    description: pick('description', current?.description ?? null) as string | null,
    ...(schedule ?? { schedule_kind: 'cron', cron: null, timezone: 'UTC', every_seconds: null, at: null, anchor_at: now }),
    delete_after_run: (pick('delete_after_run', current?.delete_after_run ?? false) as boolean) ?? false,
    executor: (pick('executor', current?.executor ?? DEFAULT_EXECUTOR) as string) ?? DEFAULT_EXECUTOR,
    payload_message: pick('payload_message', current?.payload_message ?? null) as string | null,
    config: (pick('config', current?.config ?? {}) as Record<string, unknown>) ?? {},
    workspace_id: lower(pick('workspace_id', current?.workspace_id ?? null) as string | null),
    conversation_id: lower(pick('conversation_id', current?.conversation_id ?? null) as string | null),
    agent_id: lower(pick('agent_id', current?.agent_id ?? null) as string | null),
    goal_id: lower(pick('goal_id', current?.goal_id ?? null) as string | null),
    deliverables: (pick('deliverables', current?.deliverables ?? []) as string[]) ?? [],
    overlap: (pick('overlap', current?.overlap ?? 'skip') as OverlapPolicy) ?? 'skip',
    enabled: (pick('enabled', current?.enabled ?? true) as boolean) ?? true,
  };
  if (values.delete_after_run && values.schedule_kind !== 'at') problems.push({ field: 'delete_after_run', message: "The 'delete_after_run' field applies to one-shot jobs (schedule kind at) only.", type: 'forbidden' });
  values.deliverables.forEach((path, i) => {
    const why = deliverableProblem(path);
    if (why) problems.push({ field: `deliverables[${i}]`, message: `deliverables[${i}] '${path.slice(0, 80)}' is not a workspace file path: ${why}.`, type: 'path' });
  });
  if (values.deliverables.length && !values.workspace_id) problems.push({ field: 'workspace_id', message: 'A job with deliverables needs a workspace_id: the files are checked in that workspace.', type: 'required' });
  const loaded = listExecutors(ctx.broker);
  const executor = loaded.get(values.executor);
  if (!executor) problems.push(executorProblem(values.executor, [...loaded.keys()].sort()));
  else problems.push(...executorFieldProblems(executor, values));
  if (problems.length) throw invalid(problems);
  const changed = (link: ContextLink) => !current || current[link] !== values[link];
  problems.push(...(await checkLinks(ctx, values, changed)));
  if (problems.length) throw invalid(problems);
  const checked = await executorCheck(ctx, executor!, values, current);
  const missing = checked.find((p) => p.status === 404);
  if (missing) throw ERRORS.NOT_FOUND(missing.message, { field: missing.field });
  if (checked.length) throw invalid(checked.map(({ field, message, type }) => ({ field, message, type })));
  return { values, executor: executor! };
}

async function executorCheck(ctx: Context, executor: ExecutorDeclaration, values: JobValues, current: JobRow | undefined): Promise<CheckProblem[]> {
  const endpoint = ctx.broker.findNextActionEndpoint(`${EXECUTOR_SERVICE_PREFIX}${executor.name}.check`);
  if (!endpoint || endpoint instanceof Error) return [];
  const job = executorJob({ ...(current ?? ({} as JobRow)), ...values, id: current?.id ?? '00000000-0000-0000-0000-000000000000', entity_id: current?.entity_id ?? '' });
  const { problems } = (await ctx.call(`${EXECUTOR_SERVICE_PREFIX}${executor.name}.check`, { job })) as { problems: CheckProblem[] };
  return problems ?? [];
}

function lower(id: string | null): string | null {
  return id && isUuid(id) ? id.toLowerCase() : id;
}
