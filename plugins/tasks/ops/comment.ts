import type { Context } from 'moleculer';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { PageStart } from '../../../kernel/tenancy/cursor.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { taskFeedPage } from '../db/task-feed.ts';
import { parseMentions, type Mention } from '../domain/mentions.ts';
import { resumeTargetOnComment } from '../domain/state-machine.ts';
import { invalidField } from '../errors.ts';
import { appendExecution, appendHistory, getTask, type Actor, type ExecutionEntryInput } from '../db/task-store.ts';
import type { TaskRow } from '../db/task-row.ts';
import { changeTask } from './change.ts';
import { dispatchEntry, emitDispatches } from './dispatch.ts';
import { answerHitl } from './runs.ts';
import { emitStatusChanged, moveTask, type MoveResult } from './move.ts';
import { emitAfterCommit } from '../service.ts';

export interface LogRow {
  id: string;
  task_id: string;
  author_type: string;
  author_id: string | null;
  body: string;
  mentions: Mention[];
  created_at: Date;
}

export interface CommentResult {
  log: LogRow;
  task: TaskRow;
  moved?: MoveResult;
  dispatches: ExecutionEntryInput[];
  /** the run's question this comment answered (the task waited on a person's answer) */
  answered?: Record<string, unknown>;
}

/**
 * Adds a comment, in one transaction with everything it causes: its files are linked to it,
 * a person's comment answers the question a run is waiting on, a waiting task resumes (a legal
 * move of the machine, recorded), and each @-mentioned agent is dispatched (execution record
 * entry; the event follows the commit).
 */
export async function addComment(db: Sequelize, entityId: string, taskId: string, input: { body: string; attachment_ids?: string[] }, actor: Actor): Promise<CommentResult> {
  const now = new Date();
  const logId = newId();
  const mentions = parseMentions(input.body);
  const dispatches = mentions.filter((m) => m.type === 'agent').map((m) => dispatchEntry(m.id, 'mention', { log_id: logId }));
  const attachmentIds = [...new Set((input.attachment_ids ?? []).map((id) => id.toLowerCase()))];
  await getTask(db, entityId, taskId); // 404 before opening a transaction
  return db.transaction(async (transaction) => {
    let task = await getTask(db, entityId, taskId, { transaction, lock: true });
    const [log] = await db.query<LogRow>(
      `INSERT INTO task_logs (id, entity_id, task_id, author_type, author_id, body, mentions, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING id, task_id, author_type, author_id, body, mentions, created_at`,
      { bind: [logId, entityId, task.id, actor.type, actor.id, input.body, JSON.stringify(mentions), now], type: QueryTypes.SELECT, transaction },
    );
    if (attachmentIds.length) {
      const linked = await db.query<{ id: string }>(
        'UPDATE task_attachments SET log_id = $1 WHERE id = ANY($2::uuid[]) AND task_id = $3 AND entity_id = $4 AND log_id IS NULL RETURNING id',
        { bind: [logId, attachmentIds, task.id, entityId], type: QueryTypes.SELECT, transaction },
      );
      const missing = attachmentIds.filter((id) => !linked.some((l) => l.id === id));
      if (missing.length) throw invalidField('attachment_ids', `Attachment(s) ${missing.join(', ')} are not unattached files of this task; upload them first (POST /tasks/${task.id}/attachments).`, 'reference');
    }
    await appendHistory(db, entityId, task.id, { action: 'comment', actor, changes: [{ field: 'logs', from: null, to: logId }] }, now, transaction);
    let answered: Record<string, unknown> | undefined;
    if (task.pending_request?.kind === 'hitl' && (actor.type === 'user' || actor.type === 'public')) {
      const change = await changeTask(db, { entityId, taskId: task.id, actor, now, transaction, decide: (row) => answerHitl(row, undefined, input.body, actor, now, logId) });
      task = change.row;
      answered = change.decision.execution![0].data;
    }
    const resumeTo = resumeTargetOnComment(task.status);
    if (resumeTo) {
      const moved = await moveTask(db, { entityId, taskId: task.id, to: resumeTo, actor, expectedVersion: Number(task.version), via: 'comment', execution: dispatches, now, transaction });
      return { log, task: moved.row, moved, dispatches, answered };
    }
    await appendExecution(db, entityId, task.id, dispatches, now, transaction);
    return { log, task, dispatches, answered };
  });
}

/** Once committed: the comment, a resumed task's status change, the mentioned agents' runs. */
export function emitCommented(ctx: Context, result: CommentResult, actor: Actor): void {
  emitAfterCommit(ctx, 'task.commented', { entity_id: result.task.entity_id, task_id: result.task.id, log_id: result.log.id, mentions: result.log.mentions, actor });
  if (result.moved) emitStatusChanged(ctx, result.moved, actor, 'comment');
  if (result.answered) emitAfterCommit(ctx, 'task.hitl.responded', { entity_id: result.task.entity_id, task_id: result.task.id, ...result.answered });
  // the mentioned agent reads the comment that asked for it
  emitDispatches(ctx, result.task, result.dispatches, { comment: result.log.body });
}

/** A page of a task's comments, oldest first (by offset or after a cursor's key). */
export async function logsOf(db: Sequelize, entityId: string, taskId: string, page: PageStart): Promise<{ rows: LogRow[]; total: number }> {
  return taskFeedPage<LogRow>(db, 'task_logs', 'id, task_id, author_type, author_id, body, mentions, created_at', { entityId, taskId }, page);
}
