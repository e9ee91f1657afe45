import { defineTool, type ToolInvocation } from '../../kernel/tools/define.ts';
import { callAction, requireUser } from '../../kernel/tools/calls.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';

const OPS = ['create', 'update', 'comment', 'move', 'get', 'list'] as const;
const ID = { type: 'string', minLength: 1, maxLength: 64 };
const requires = (op: string, ...names: string[]) => ({ if: { properties: { op: { const: op } } }, then: { required: names } });

const declaration: ToolDeclaration = {
  name: 'tasks',
  description:
    "Works with the tasks of this workspace (the platform's units of accountable work). op create (title, description, priority 1 = most urgent .. 5, deadline ISO 8601, assignee, parent_id), update (task_id and the fields to change), comment (task_id, body in Markdown), move (task_id, status: the state machine decides which moves are legal; the error names the allowed ones), get (task_id), list (statuses, query, limit, offset). Writes are recorded as done by the user the agent works for.",
  category: 'tasks',
  risk: 'medium',
  side_effect: 'non_idempotent',
  parameters: {
    type: 'object',
    properties: {
      op: { type: 'string', enum: [...OPS] },
      task_id: ID,
      title: { type: 'string', minLength: 1, maxLength: 500 },
      description: { type: 'string', maxLength: 100_000 },
      priority: { type: 'integer', minimum: 1, maximum: 5 },
      deadline: { type: ['string', 'null'], maxLength: 40, description: 'ISO 8601 date or date-time; null clears it' },
      assignee: {
        type: ['object', 'null'],
        properties: { type: { type: 'string', enum: ['user', 'agent'] }, id: { type: 'string', minLength: 1, maxLength: 128 } },
        required: ['type', 'id'],
        additionalProperties: false,
        description: 'who does the task; null unassigns',
      },
      parent_id: { ...ID, description: 'create: the parent task of a subtask' },
      status: { type: 'string', minLength: 1, maxLength: 64, description: 'move: the target status' },
      body: { type: 'string', minLength: 1, maxLength: 50_000, description: 'comment: Markdown text' },
      version: { type: 'integer', minimum: 1, description: 'update, move: the version you read (the write fails if the task changed since); default the current one' },
      statuses: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 11, description: 'list: only these statuses' },
      query: { type: 'string', minLength: 1, maxLength: 200, description: 'list: text search' },
      limit: { type: 'integer', minimum: 1, maximum: 50, description: 'list: default 20' },
      offset: { type: 'integer', minimum: 0, maximum: 100_000 },
    },
    required: ['op'],
    additionalProperties: false,
    allOf: [requires('create', 'title'), requires('update', 'task_id'), requires('comment', 'task_id', 'body'), requires('move', 'task_id', 'status'), requires('get', 'task_id')],
  },
};

interface Args {
  op: (typeof OPS)[number];
  task_id?: string;
  title?: string;
  description?: string;
  priority?: number;
  deadline?: string | null;
  assignee?: { type: 'user' | 'agent'; id: string } | null;
  parent_id?: string;
  status?: string;
  body?: string;
  version?: number;
  statuses?: string[];
  query?: string;
  limit?: number;
  offset?: number;
}

interface TaskView {
  id: string;
  workspace_id: string | null;
  version: number;
  [key: string]: unknown;
}

/**
 * The task, when this call may see it: tasks.get scopes to the caller's entity (another
 * entity's task is not found); a call inside a workspace sees only that workspace's tasks (and
 * the task the run works on).
 */
async function visibleTask(inv: ToolInvocation, id: string): Promise<TaskView> {
  const task = await callAction<TaskView>(inv, 'tasks.get', { id });
  const ws = inv.context.workspace_id;
  if (ws && task.workspace_id !== ws && task.id !== inv.context.task_id) throw toolError(`No task with id '${id}' in this workspace.`, { tool: 'tasks' });
  return task;
}

function fields(args: Args): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['title', 'description', 'priority', 'deadline', 'assignee'] as const) if (args[key] !== undefined) out[key] = args[key];
  return out;
}

export default defineTool<Args>(declaration, async (args, inv) => {
  requireUser(inv);
  const ws = inv.context.workspace_id ?? undefined;
  switch (args.op) {
    case 'get':
      return visibleTask(inv, args.task_id!);
    case 'list':
      return callAction(inv, 'tasks.list', { workspace: ws, status: args.statuses, q: args.query, limit: args.limit ?? 20, offset: args.offset ?? 0 });
    case 'create': {
      if (args.parent_id) await visibleTask(inv, args.parent_id);
      return callAction(inv, 'tasks.create', { ...fields(args), workspace_id: ws, parent_id: args.parent_id });
    }
    case 'update': {
      const task = await visibleTask(inv, args.task_id!);
      const change = fields(args);
      if (!Object.keys(change).length) throw toolError('update: give at least one field to change (title, description, priority, deadline, assignee); use op move for the status.', { tool: 'tasks' });
      return callAction(inv, 'tasks.update', { id: task.id, ...change, version: args.version ?? task.version });
    }
    case 'move': {
      const task = await visibleTask(inv, args.task_id!);
      return callAction(inv, 'tasks.move', { id: task.id, status: args.status, version: args.version ?? task.version });
    }
    case 'comment': {
      const task = await visibleTask(inv, args.task_id!);
      return callAction(inv, 'tasks.addLog', { id: task.id, body: args.body });
    }
  }
});
