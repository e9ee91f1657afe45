import { kernelOf } from '../../kernel/context.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';
import type { ProjectOperation } from './document-ops.ts';
import { MAX_DOCUMENT_BYTES, runOperation } from './project-store.ts';

/**
 * Workflow node type `workflow_project`: a durable JSON document per binding (per workflow for
 * runs without one), shared by all its runs: `get` reads it, `set` puts a value at a path,
 * `merge` merges an object into the one at a path, `increment` adds to a number. Every change
 * locks the document in one transaction (project-store.ts): concurrent runs lose no update.
 * An increment in flight when its worker died is not repeated (uncertain effect: reconciled).
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'workflow_project',
  version: 1,
  category: 'state',
  title: 'Workflow Project',
  description: "Reads or changes a durable JSON document shared by every run of the binding (get, set, merge, atomic increment).",
  config_schema: {
    type: 'object',
    properties: {
      operation: { type: 'string', enum: ['get', 'set', 'merge', 'increment'], default: 'get', description: 'get: read; set: put `value` at `path`; merge: merge the object `value` into the one at `path`; increment: add `by` to the number at `path` (missing counts as 0).', examples: ['increment'] },
      path: { type: 'string', maxLength: 500, default: '', description: "Where in the document: 'counters.sent', 'items[0].name'; '' is the whole document (an object).", examples: ['counters.sent'] },
      value: { description: 'set: any JSON value; merge: an object (nested objects merge, anything else replaces). Templates allowed.', default: null, examples: [{ last_run: '{{trigger.id}}' }] },
      by: { type: 'number', default: 1, description: 'increment: the amount to add (negative subtracts).', examples: [5] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: { config_key: 'operation', values: ['increment'] },
  side_effect: 'non_idempotent',
  failures: {
    ...COMMON_STEP_FAILURES,
    NO_RUN_CONTEXT: 'the step ran outside a workflow run (no entity, binding or workflow to scope the document by)',
    DOCUMENT_TOO_LARGE: `the change would make the document larger than ${MAX_DOCUMENT_BYTES} bytes; nothing was stored`,
  },
};

type Config = { operation?: ProjectOperation['operation']; path?: string; value?: unknown; by?: number };

function operationOf(config: Config): ProjectOperation {
  const path = config.path ?? '';
  switch (config.operation ?? 'get') {
    case 'set':
      if (config.value === undefined) throw new NodeStepError('set needs config.value.', 'BAD_CONFIG');
      return { operation: 'set', path, value: config.value };
    case 'merge':
      if (config.value === null || typeof config.value !== 'object' || Array.isArray(config.value)) throw new NodeStepError('merge needs config.value to be an object.', 'BAD_CONFIG');
      return { operation: 'merge', path, value: config.value as Record<string, unknown> };
    case 'increment':
      return { operation: 'increment', path, by: config.by ?? 1 };
    default:
      return { operation: 'get', path };
  }
}

export default defineDataNodeType<Config>(nodeType, async ({ config, context }, budget, ctx) => {
  const op = operationOf(config);
  const owner = context.binding_id ? `binding:${context.binding_id}` : context.workflow_id ? `workflow:${context.workflow_id}` : '';
  if (!context.entity_id || !owner) throw new NodeStepError('workflow_project needs a workflow run (its binding or workflow scopes the document).', 'NO_RUN_CONTEXT');
  budget.check();
  const state = await runOperation(kernelOf(ctx.broker).db, { entity_id: context.entity_id, scope: owner }, op, context.run_id ?? '');
  return { output: { operation: op.operation, path: op.path, value: state.value, document: state.document, version: state.version } };
});
