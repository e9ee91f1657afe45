import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { configProblems } from '../definitions/validate.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { callNode } from '../engine/node-call.ts';
import { resolveTemplates } from '../engine/templates.ts';
import type { WorkflowsAction } from '../service.ts';

/** `POST /api/v1/workflows/run-node`: one node, standalone, for the editor (nothing is stored). */
export const runNode: WorkflowsAction = {
  rest: 'POST /run-node',
  summary: 'Execute one node standalone',
  description: 'Validates `config` against the type\'s schema, resolves its templates with `input` as `{{trigger}}` and `variables`, and calls the node. A node failure is 422 WORKFLOWS_ERR_NODE_FAILED with its message. Nothing is stored.',
  tags: ['workflows'],
  params: {
    type: { type: 'string', min: 1, max: 64 },
    config: { type: 'object', optional: true, default: {} },
    input: { type: 'any', optional: true },
    variables: { type: 'object', optional: true },
  },
  response: {
    type: 'object',
    properties: { type: { type: 'string' }, output: {}, next: { type: ['array', 'null'] }, pause: {}, finish: {}, respond: {}, execute_ms: { type: 'number' } },
    required: ['type', 'output', 'execute_ms'],
  },
  async handler(ctx: Context<{ type: string; config: Record<string, unknown>; input?: unknown; variables?: Record<string, unknown> }>) {
    const entry = this.nodeTypes.get(ctx.params.type);
    if (!entry) throw WORKFLOWS_ERR.UNKNOWN_NODE_TYPE(`'${ctx.params.type}' is not a loaded node type.`, { type: ctx.params.type });
    const problems = configProblems(entry.description, ctx.params.config);
    if (problems.length) throw ERRORS.VALIDATION_FAILED('The config does not match the node type schema.', problems.map((p) => ({ field: `config${p.path ? `.${p.path}` : ''}`, message: `config${p.path ? `.${p.path}` : ''} ${p.message}`, type: 'bad_config', pointer: `/config${p.pointer}` })));
    const config = resolveTemplates(ctx.params.config, { outputs: new Map(), stepIds: new Set(), variables: ctx.params.variables ?? {}, trigger: ctx.params.input ?? null }) as Record<string, unknown>;
    try {
      const { result, executeMs } = await callNode(this.broker, entry, { config, input: ctx.params.input ?? null, inputs: {}, context: { run_id: '', step_id: 'run-node', entity_id: entityOf(ctx), workspace_id: null, workflow_id: '', binding_id: null, attempt: 1 } }, config.timeout);
      return { type: ctx.params.type, output: result.output ?? null, next: result.next ?? null, pause: result.pause ?? null, finish: result.finish ?? null, respond: result.respond ?? null, execute_ms: Math.round(executeMs * 1000) / 1000 };
    } catch (err) {
      const e = err as { message?: string; name?: string };
      throw WORKFLOWS_ERR.NODE_FAILED(e.message ?? String(err), { type: ctx.params.type, error: e.name ?? 'Error' });
    }
  },
};
