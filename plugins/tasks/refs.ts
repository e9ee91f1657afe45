import type { Context } from 'moleculer';
import { QueryTypes, type Sequelize } from 'sequelize';
import { invalid, type FieldProblem } from './errors.ts';
import { workspaceProblem } from '../../kernel/references.ts';

export { workspaceProblem };
import type { SlaTargets } from './domain/sla.ts';

/**
 * Checks that the records a task refers to exist in the caller's entity. The workspace
 * belongs to the workspaces package, asked through the broker (never by reading its tables);
 * categories, SLA policies and parent tasks are this package's own rows.
 */

export interface TaskRefs {
  workspace_id?: string | null;
  category_id?: string | null;
  sla_policy_id?: string | null;
  parent_id?: string | null;
}

export interface CheckedRefs {
  /** the targets of the referenced SLA policy, when one was named */
  slaTargets?: SlaTargets;
}

/** Problems with this package's own references (category, SLA policy, parent task). */
async function ownRefProblems(db: Sequelize, entityId: string, refs: TaskRefs, taskId: string | undefined, out: CheckedRefs): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (refs.category_id) {
    const rows = await db.query('SELECT 1 FROM task_categories WHERE id = $1 AND entity_id = $2', { bind: [refs.category_id, entityId], type: QueryTypes.SELECT });
    if (!rows.length) problems.push({ field: 'category_id', message: `No category with id '${refs.category_id}'.`, type: 'reference' });
  }
  if (refs.sla_policy_id) {
    const rows = await db.query<{ targets: SlaTargets }>('SELECT targets FROM task_sla_policies WHERE id = $1 AND entity_id = $2', {
      bind: [refs.sla_policy_id, entityId],
      type: QueryTypes.SELECT,
    });
    if (!rows.length) problems.push({ field: 'sla_policy_id', message: `No SLA policy with id '${refs.sla_policy_id}'.`, type: 'reference' });
    else out.slaTargets = rows[0].targets;
  }
  if (refs.parent_id) problems.push(...(await parentProblems(db, entityId, refs.parent_id, taskId)));
  return problems;
}

/** The parent must be a task of the entity, and not the task itself or one of its subtasks. */
async function parentProblems(db: Sequelize, entityId: string, parentId: string, taskId: string | undefined): Promise<FieldProblem[]> {
  if (parentId === taskId) return [{ field: 'parent_id', message: 'A task cannot be its own parent.', type: 'reference' }];
  const ancestors = await db.query<{ id: string }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, 1 AS depth FROM tasks WHERE id = $1 AND entity_id = $2
       UNION ALL
       SELECT t.id, t.parent_id, up.depth + 1 FROM tasks t JOIN up ON t.id = up.parent_id WHERE t.entity_id = $2 AND up.depth < 1000
     ) SELECT id FROM up`,
    { bind: [parentId, entityId], type: QueryTypes.SELECT },
  );
  if (!ancestors.length) return [{ field: 'parent_id', message: `No task with id '${parentId}'.`, type: 'reference' }];
  if (taskId && ancestors.some((a) => a.id === taskId)) return [{ field: 'parent_id', message: `Task '${parentId}' is a subtask of this task; that would make a cycle.`, type: 'reference' }];
  return [];
}

/** 422 naming every reference that does not resolve; else what the references carry. */
export async function checkRefs(ctx: Context, db: Sequelize, entityId: string, refs: TaskRefs, taskId?: string, fieldPrefix = ''): Promise<CheckedRefs> {
  const out: CheckedRefs = {};
  const problems = await ownRefProblems(db, entityId, refs, taskId, out);
  if (refs.workspace_id) {
    const problem = await workspaceProblem(ctx, refs.workspace_id);
    if (problem) problems.push(problem);
  }
  if (problems.length) throw invalid(problems.map((p) => ({ ...p, field: fieldPrefix + p.field })));
  return out;
}
