/**
 * Durable nodes: a workflow node type whose one step does many things in sequence (the agent
 * loop: model turn, tool calls, next model turn...) and must not repeat a finished one after a
 * crash. It declares `checkpoints: true` in `metadata.nodeType`; the engine then
 *
 * - passes `context.checkpoints`: every checkpoint this step committed before (oldest first),
 *   `context.engine_node` (the node driving the run) and `context.owner_id` (the run's owner);
 * - takes each new checkpoint through `workflows.checkpoint` (call it with `{ nodeID:
 *   context.engine_node }`): it commits as a receipt of the run (step id `<step>:<key>`) with the
 *   run's lease, in the same store and statement as every other receipt, before the call
 *   answers, together with the durable run events given (replayed to streams by id);
 * - forwards live-only events (text deltas) with `workflows.liveEvents`, the events of many
 *   runs driven on that node in one call (`runs`, see LiveEventsParams; `sendLiveEvents` in
 *   `kernel/nodes/live-outbox.ts` gathers them); each run's answer tells the node to stop early
 *   (`stop: true`, the run was cancelled or its client went away);
 * - on recovery, a checkpoint left `running` with `uncertain: true` (a non-idempotent effect in
 *   flight when the worker died) marks the run `needs_reconciliation` exactly as an uncertain
 *   step does; a `running` checkpoint without it is simply done again;
 * - a runtime approval (`runtime_approval_required`) or a question (`question`) of a durable
 *   node parks the run; the decision (approve, reject, or an answer) repeats the invocation with
 *   `context.approval` = the decision: the node continues from its checkpoints and acts on it.
 *   A rejection therefore reaches the node (which tells the model) instead of failing the run.
 */

export const WORKFLOWS_CHECKPOINT_ACTION = 'workflows.checkpoint';
export const WORKFLOWS_LIVE_EVENTS_ACTION = 'workflows.liveEvents';
export const WORKFLOWS_DECIDE_ACTION = 'workflows.decide';
export const WORKFLOWS_START_INTERNAL_RUN_ACTION = 'workflows.startInternalRun';
/** `{workspace_id}` -> the workspace's enabled chat entrypoint (ChatEntrypoint), or null */
export const WORKFLOWS_CHAT_ENTRYPOINT_ACTION = 'workflows.chatEntrypoint';

/** A workspace's chat entrypoint: the enabled binding with `chat_entrypoint: true`. */
export interface ChatEntrypoint {
  binding_id: string;
  workflow_id: string;
  workflow_name: string;
}
/** `{binding_id, trigger, watch?}` -> `{run_id, status, seq}`: a run of a chat entrypoint, owned by the caller */
export const WORKFLOWS_START_CHAT_RUN_ACTION = 'workflows.startChatRun';
/** emitted (balanced) when a run started from a chat entrypoint finishes or pauses: `{entity_id, run_id, owner_id, conversation_id, kind: 'workflow', status, paused_at}` (paused_at: the step a paused run waits on) */
export const WORKFLOWS_CHAT_RUN_STOPPED_EVENT = 'workflows.chat_run.stopped';
/** broadcast {run_id, reason}: the node driving the run asks its durable steps to stop */
export const WORKFLOWS_INTERRUPT_EVENT = 'workflows.run.interrupt';
/** emitted after a worker's drive of an internal run (trigger_type `agent`) ends: see RunSettled */
export const WORKFLOWS_RUN_SETTLED_EVENT = 'workflows.run.settled';

export interface RunSettled {
  entity_id: string;
  run_id: string;
  owner_id: string | null;
  workspace_id: string | null;
  trigger_type: string;
  trigger: Record<string, unknown> | null;
  status: 'completed' | 'failed' | 'paused' | 'cancelled' | 'running' | 'pending';
  output: unknown;
  error: { message?: string; code?: string; step_id?: string } | null;
  pause: { kind: string; message: string | null; step_id: string; request?: unknown } | null;
}

/** Separates a durable step's id from its checkpoint key in the receipt's step id (never valid in a step id). */
export const CHECKPOINT_SEPARATOR = ':';

export const CHECKPOINT_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

export type CheckpointStatus = 'running' | 'completed' | 'failed';

export interface Checkpoint {
  key: string;
  status: CheckpointStatus | 'needs_reconciliation' | 'reconciled';
  output: unknown;
  error: unknown;
  uncertain: boolean;
  started_at: string | null;
  finished_at: string | null;
}

/** One checkpoint of a durable step. */
export interface CheckpointEntry {
  key: string;
  status: CheckpointStatus;
  output?: unknown;
  error?: unknown;
  /** a `running` marker of an effect that must not be repeated blindly */
  uncertain?: boolean;
  /** durable run events committed with it (type + data), e.g. `agent.tool.call` */
  events?: { type: string; data: Record<string, unknown> }[];
}

export interface CheckpointParams extends CheckpointEntry {
  run_id: string;
  step_id: string;
  /**
   * Earlier checkpoints of the step committed in the same commit, in order, ahead of this one:
   * one a node held back because losing it costs nothing but a repeat (an agent's model turn,
   * held until its read-only tool answered). At most CHECKPOINTS_AHEAD_MAX.
   */
  ahead?: CheckpointEntry[];
}

export const CHECKPOINTS_AHEAD_MAX = 8;

export interface RunEventsParams {
  run_id: string;
  events: { type: string; data: Record<string, unknown> }[];
}

/** Most runs in one `workflows.liveEvents` call. */
export const LIVE_EVENTS_RUNS_MAX = 500;

/** `workflows.liveEvents` params: the live events of several runs (a run may come more than once; in order). */
export interface LiveEventsParams {
  runs: RunEventsParams[];
}

/** `workflows.liveEvents` answer: one DurableAnswer per entry of `runs`, in the same order. */
export interface LiveEventsAnswer {
  answers: DurableAnswer[];
}

/** The answer of both actions: `stop` asks the node to end its step now (cancelled, interrupted). */
export interface DurableAnswer {
  seq?: number;
  stop: boolean;
  reason?: string;
}

/** What a decision of a parked durable step looks like in `context.approval`. */
export interface DurableDecision {
  decision: 'approve' | 'reject' | 'answer';
  decided_by: string;
  decided_at: string;
  comment: string | null;
  /** decision `answer`: the person's answer to the node's question */
  answer?: string;
}
