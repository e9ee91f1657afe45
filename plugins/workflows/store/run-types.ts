import type { ReceiptStatus } from '../engine/plan.ts';
import type { Snapshot } from './definitions.ts';

export type RunStatus = 'pending' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

export interface PauseInfo {
  step_id: string;
  /** `runtime_approval`: the step's node answered runtime_approval_required and waits for a decision */
  kind: 'approval' | 'timer' | 'event' | 'runtime_approval' | 'question';
  decision_required: boolean;
  resume_at: string | null;
  message: string | null;
  event: string | null;
  /** runtime_approval: the exact invocation to repeat once approved (config as resolved then, input, inputs) */
  invocation?: SavedInvocation;
  /** runtime_approval: what the node asked approval for */
  request?: unknown;
  /** runtime_approval: the owner's decision, once given (the worker then repeats the invocation) */
  approval?: Approval;
}

export interface SavedInvocation {
  config: Record<string, unknown>;
  input: unknown;
  inputs: Record<string, unknown>;
}

export interface Approval {
  /** `reject` and `answer` only for durable nodes (kernel/nodes/durable.ts), which act on them */
  decision: 'approve' | 'reject' | 'answer';
  answer?: string;
  decided_by: string;
  decided_at: string;
  comment: string | null;
}

export interface RunRow {
  id: string;
  entity_id: string;
  workflow_id: string;
  workflow_version: number;
  binding_id: string | null;
  workspace_id: string | null;
  owner_id: string | null;
  trigger_type: string;
  status: RunStatus;
  /** null only for a run whose definition version no longer exists (store/version-snapshots.ts) */
  snapshot: Snapshot | null;
  /** not a column: the snapshot was read from its definition version, the row holds no copy */
  snapshot_by_version?: boolean;
  trigger: unknown;
  variables: Record<string, unknown>;
  output: unknown;
  error: unknown;
  pause: PauseInfo | null;
  retry_of: string | null;
  root_run_id: string;
  retry_from_step: string | null;
  invalidated: string[] | null;
  lineage_attempt: number;
  seq: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  recoveries: number;
  inline: boolean;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A run with its snapshot at hand: what the engine executes. */
export type RunnableRun = RunRow & { snapshot: Snapshot };

/**
 * `directive.output` of a receipt whose output is its run's trigger (an entry step passing the
 * trigger on): the row stores no copy (store/runs.ts), and reads give the run's trigger back.
 */
export const OUTPUT_IS_TRIGGER = 'trigger';

export interface ReceiptRow {
  step_id: string;
  status: ReceiptStatus;
  attempt: number;
  input: unknown;
  output: unknown;
  error: unknown;
  taken: string[] | null;
  /** what the node asked of the engine (pause, finish, respond), artifacts and child runs */
  directive: Record<string, unknown> | null;
  uncertain: boolean;
  carried_from?: string | null;
  started_at: string | null;
  finished_at: string | null;
  execute_ms: number | null;
}

export interface RunEvent {
  type: string;
  data: Record<string, unknown>;
}

/** One commit of a run: receipts, the events that describe them, and optionally a new run status. */
export interface Commit {
  receipts: ReceiptRow[];
  events: RunEvent[];
  finish?: { status: 'completed' | 'failed' | 'paused'; output?: unknown; error?: unknown; pause?: PauseInfo | null; resumeAt?: string | null };
}

/** The fields a new run row gets: those of the row it becomes, plus its retry lineage. */
export type NewRun = Pick<RunRow, 'id' | 'entity_id' | 'workflow_id' | 'workflow_version' | 'binding_id' | 'workspace_id' | 'owner_id' | 'trigger_type' | 'trigger' | 'variables'> & {
  snapshot: Snapshot;
  /** the snapshot IS the saved version `workflow_version`: the row references it instead of holding a copy */
  snapshot_by_version?: boolean;
  retry_of?: string | null;
  root_run_id?: string;
  retry_from_step?: string | null;
  invalidated?: string[] | null;
  lineage_attempt?: number;
  inline?: boolean;
};
