import type { Context } from 'moleculer';
import { newId } from '../../../kernel/tenancy/ids.ts';
import type { ExecutionEntryInput } from '../db/task-store.ts';
import type { TaskRow } from '../db/task-row.ts';
import { emitAfterCommit } from '../service.ts';

/**
 * Starting an agent on a task: an execution record entry in state `dispatched` plus the event
 * TASK_RUN_REQUESTED, which the agent runtime (plugins/agent-runtime) consumes (the entry's
 * dispatch_id lets it report back).
 */

export const TASK_RUN_REQUESTED = 'task.run.requested';

export type DispatchReason = 'assigned_at_creation' | 'unassigned_at_creation' | 'mention' | 'retry' | 'assigned';

/** `agentId` null: the master agent. */
export function dispatchEntry(agentId: string | null, reason: DispatchReason, extra: Record<string, unknown> = {}): ExecutionEntryInput {
  return { kind: 'dispatch', data: { dispatch_id: newId(), agent_id: agentId, reason, state: 'dispatched', event: TASK_RUN_REQUESTED, ...extra } };
}

/**
 * One run request per dispatch entry, once the entries committed. `extra`: fields for the event
 * only, not the execution record (a mentioning comment's text).
 */
export function emitDispatches(ctx: Context, row: TaskRow, entries: ExecutionEntryInput[], extra: Record<string, unknown> = {}): void {
  for (const entry of entries) {
    if (entry.kind !== 'dispatch') continue;
    emitAfterCommit(ctx, TASK_RUN_REQUESTED, {
      entity_id: row.entity_id,
      task_id: row.id,
      workspace_id: row.workspace_id,
      // the user whose action asked for the run: the agent runtime runs it on their behalf
      requested_by: (ctx.meta as { user?: { id?: string } }).user?.id ?? null,
      ...entry.data,
      ...extra,
    });
  }
}
