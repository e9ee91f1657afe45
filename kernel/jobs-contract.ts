/**
 * Job executors: what a scheduled job's fire does. An executor is a capability package of kind
 * `executor` (top-level `executors/<name>/`, or any package root), exporting one service
 * `executor.<name>` whose `metadata.executor` is an ExecutorDeclaration. The jobs package finds
 * executors in the service registry, so a hot-loaded one is usable at once on every node.
 *
 * Actions of `executor.<name>`:
 * - `check` (optional) `{job}` -> `{problems: [{field, message, type, status?}]}`: what is wrong
 *   with a job before it is saved, beyond its config schema (a workflow binding that does not
 *   exist...). A problem with `status: 404` is answered as a 404 (another entity's record).
 * - `execute` `{job, run}` -> ExecuteAnswer: starts (or does) the work, called on a node of the
 *   declared queue's role, as the job's creator (`ctx.meta.user`).
 * - `poll` (optional) `{job, run}` -> ExecuteAnswer: where a started run stands now (for an
 *   answer `running` with a `task_id` or `workflow_run_id`).
 */

export const EXECUTOR_SERVICE_PREFIX = 'executor.';
export const EXECUTOR_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const CONTEXT_LINKS = ['workspace_id', 'conversation_id', 'agent_id', 'goal_id'] as const;
export type ContextLink = (typeof CONTEXT_LINKS)[number];

export interface ExecutorDeclaration {
  name: string;
  description: string;
  /** `work` for agent and workflow runs, `celery` for control-plane work */
  queue: 'work' | 'celery';
  /** context links a job of this executor must have (one of them, when `requires_one`) */
  requires?: ContextLink[];
  requires_one?: ContextLink[];
  /** whether `payload_message` is required */
  needs_prompt: boolean;
  /** JSON schema (kernel/json-schema/validate.ts keywords) of the job's `config`; absent: config must be empty */
  config?: Record<string, unknown>;
  /** starting twice is harmless: a start cut off by a kill is re-queued instead of failed */
  restartable: boolean;
  /** agent jobs get a frozen execution skill generated from the prompt */
  frozen_skill?: boolean;
}

/** What a job gives its executor to work with: its prompt, config and context links. */
export interface JobContext {
  payload_message: string | null;
  config: Record<string, unknown>;
  workspace_id: string | null;
  conversation_id: string | null;
  agent_id: string | null;
  goal_id: string | null;
  deliverables: string[];
}

/** The context fields of a stored job, as the API and executors show them. */
export function jobContextOf(row: JobContext): JobContext {
  return {
    payload_message: row.payload_message,
    config: row.config ?? {},
    workspace_id: row.workspace_id,
    conversation_id: row.conversation_id,
    agent_id: row.agent_id,
    goal_id: row.goal_id,
    deliverables: row.deliverables ?? [],
  };
}

/** The job as an executor sees it. */
export interface ExecutorJob extends JobContext {
  id: string;
  entity_id: string;
  name: string;
  executor: string;
  frozen_skill: string | null;
  created_by: string | null;
}

export interface ExecutorRun {
  id: string;
  scheduled_for: string;
  trigger: 'schedule' | 'run_now' | 'catch_up';
  /** 1 on the first start, 2 when a restartable run was started again after its worker died */
  attempt: number;
  started_at: string | null;
  task_id: string | null;
  workflow_run_id: string | null;
  /** when the job's last successful run started (null: none yet): the period a run looks back to */
  last_success_at: string | null;
}

export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
}

export interface ExecuteAnswer {
  status: 'succeeded' | 'failed' | 'running';
  task_id?: string | null;
  workflow_run_id?: string | null;
  output?: unknown;
  usage?: TokenUsage | null;
  error?: { code: string; message: string } | null;
}

export interface CheckProblem {
  field: string;
  message: string;
  type: string;
  status?: 404 | 422;
}

/** Broadcast by the jobs package after a job changed: schedulers move their timers. */
export const JOBS_CHANGED_EVENT = 'jobs.changed';
export interface JobsChanged {
  job_id: string;
  next_run_at: string | null;
}

/** Internal actions the scheduler calls. */
export const JOBS_FIRE_DUE_ACTION = 'jobs.fireDue';
export const JOBS_NEXT_DUE_ACTION = 'jobs.nextDue';
export const JOBS_RECOVER_ACTION = 'jobs.recover';
export const JOBS_PREPARE_FIRE_ACTION = 'jobs.prepareFire';
export const JOB_RUN_JOB = 'job.run';

/** A run to put on a queue (its row is committed). */
export interface DispatchRun {
  run_id: string;
  queue: 'work' | 'celery';
  scheduled_for: string;
}

/** A workflow binding with trigger `schedule`, as `workflows.scheduleBindings` answers it (the jobs package mirrors each as a job). */
export interface ScheduleBinding {
  id: string;
  entity_id: string;
  workflow_id: string;
  workspace_id: string;
  enabled: boolean;
  cron: string | null;
  timezone: string;
  created_by: string | null;
}
