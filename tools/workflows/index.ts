import { defineTool, type ToolInvocation } from '../../kernel/tools/define.ts';
import { callAction, requireUser } from '../../kernel/tools/calls.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';

const ID = { type: 'string', minLength: 1, maxLength: 64 };
const PAGE = 200;
/** how many bindings of one workspace are searched for the one named (pages of 200) */
const MAX_PAGES = 25;
const requires = (op: string, ...names: string[]) => ({ if: { properties: { op: { const: op } } }, then: { required: names } });

const declaration: ToolDeclaration = {
  name: 'workflows',
  description:
    "Runs the workflows bound to this workspace. op start_binding_run (binding_id, input: the trigger payload, wait: true to answer the finished run, up to the server's wait limit, else {run_id, status} at once), get_run (run_id): status, output, error and the step trace.",
  category: 'workflows',
  risk: 'medium',
  side_effect: 'non_idempotent',
  parameters: {
    type: 'object',
    properties: {
      op: { type: 'string', enum: ['start_binding_run', 'get_run'] },
      binding_id: ID,
      input: { type: ['object', 'array', 'string', 'number', 'boolean', 'null'], description: 'start_binding_run: the trigger payload ({{trigger}} in the workflow)' },
      wait: { type: 'boolean', description: 'start_binding_run: wait for the run to finish or pause' },
      run_id: ID,
    },
    required: ['op'],
    additionalProperties: false,
    allOf: [requires('start_binding_run', 'binding_id'), requires('get_run', 'run_id')],
  },
};

interface Args {
  op: 'start_binding_run' | 'get_run';
  binding_id?: string;
  input?: unknown;
  wait?: boolean;
  run_id?: string;
}

type Page<T> = { items: T[]; total: number };

/** A binding of the context's workspace (listed by the workflows package within the caller's entity). */
async function bindingInWorkspace(inv: ToolInvocation, bindingId: string, workspaceId: string): Promise<void> {
  for (let page = 0; page < MAX_PAGES; page++) {
    const { items, total } = await callAction<Page<{ id: string }>>(inv, 'workflows.listBindings', { workspace_id: workspaceId, limit: PAGE, offset: page * PAGE });
    if (items.some((b) => b.id === bindingId.toLowerCase())) return;
    if ((page + 1) * PAGE >= total) break;
  }
  throw toolError(`No workflow binding with id '${bindingId}' in this workspace.`, { tool: 'workflows' });
}

export default defineTool<Args>(declaration, async (args, inv) => {
  requireUser(inv);
  const ws = inv.context.workspace_id;
  if (args.op === 'start_binding_run') {
    // in a workspace, only that workspace's bindings; the workflows package keeps to the entity
    if (ws) await bindingInWorkspace(inv, args.binding_id!, ws);
    return callAction(inv, 'workflows.runBinding', { id: args.binding_id, input: args.input, wait: args.wait ?? false });
  }
  const run = await callAction<{ id: string; workspace_id: string | null }>(inv, 'workflows.getRun', { run_id: args.run_id });
  if (ws && run.workspace_id !== ws) throw toolError(`No workflow run with id '${args.run_id}' in this workspace.`, { tool: 'workflows' });
  return run;
});
