import type { Context } from 'moleculer';
import { ForeignKeyConstraintError, QueryTypes } from 'sequelize';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { kernelOf } from '../../../kernel/context.ts';
import { getTask } from '../db/task-store.ts';
import { TASKS_ERR_IN_USE } from '../errors.ts';
import { dbOf, emitAfterCommit, userActor, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

/** `DELETE /api/v1/tasks/{id}`: the task with its comments, attachments, history and codes. */
export const remove: TasksAction = {
  rest: 'DELETE /:id',
  workspaceOf: taskWorkspace,
  summary: 'Delete a task',
  description: 'Refused (409 `TASKS_ERR_IN_USE`) while the task has subtasks: delete or re-parent them first.',
  tags: ['tasks'],
  params: { id: { type: 'string', min: 1, max: 64 } },
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ id: string }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const task = await getTask(db, entityId, ctx.params.id);
    const hasSubtasks = (n: number) => TASKS_ERR_IN_USE(`Task '${task.id}' has ${n} subtask(s); delete or re-parent them first.`, { task_id: task.id, subtasks: n });
    const keys = await db.transaction(async (transaction) => {
      const [subtasks] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks WHERE parent_id = $1 AND entity_id = $2', { bind: [task.id, entityId], type: QueryTypes.SELECT, transaction });
      if (subtasks.n > 0) throw hasSubtasks(subtasks.n);
      const files = await db.query<{ object_key: string }>('SELECT object_key FROM task_attachments WHERE task_id = $1 AND entity_id = $2', { bind: [task.id, entityId], type: QueryTypes.SELECT, transaction });
      await db.query('DELETE FROM tasks WHERE id = $1 AND entity_id = $2', { bind: [task.id, entityId], transaction });
      return files.map((f) => f.object_key);
    }).catch((err: unknown) => {
      if (err instanceof ForeignKeyConstraintError) throw hasSubtasks(1); // a subtask was added meanwhile
      throw err;
    });
    const objects = kernelOf(this.broker).objects;
    for (const key of keys) await objects.delete(key).catch((err: unknown) => this.logger.warn({ err, key }, 'could not delete an attachment object of a deleted task'));
    emitAfterCommit(ctx, 'task.deleted', { entity_id: entityId, task_id: task.id, workspace_id: task.workspace_id, actor: userActor(ctx) });
    return undefined;
  },
};
