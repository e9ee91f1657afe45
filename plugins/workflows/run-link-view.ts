import type { JSONSchema } from '../../kernel/openapi/types.ts';
import type { RunLink } from './store/run-links.ts';

/** A parent-child link of sub-workflow runs, as GET /runs/{id}/family shows it. */
export const RUN_LINK_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    run_id: { type: 'string', format: 'uuid', description: 'the child run' },
    parent_run_id: { type: 'string', format: 'uuid' },
    parent_step_id: { type: 'string' },
    item_index: { type: 'integer', description: 'foreach_subworkflow: the element it ran for (0 for subworkflow)' },
    depth: { type: 'integer', description: '1 for a child of a top-level run' },
    status: { type: ['string', 'null'], description: 'null while the linked run is not created yet' },
    workflow_id: { type: ['string', 'null'] },
  },
  required: ['run_id', 'parent_run_id', 'parent_step_id', 'item_index', 'depth'],
};

export function runLinkView(l: RunLink & { status?: string | null; workflow_id?: string | null }): Record<string, unknown> {
  return { run_id: l.child_run_id, parent_run_id: l.parent_run_id, parent_step_id: l.parent_step_id, item_index: l.item_index, depth: l.depth, ...(l.status !== undefined ? { status: l.status } : {}), ...(l.workflow_id !== undefined ? { workflow_id: l.workflow_id } : {}) };
}
