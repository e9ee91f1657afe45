import { NODE_TYPE_SCHEMA } from '../schemas.ts';
import type { WorkflowsAction } from '../service.ts';

/** `GET /api/v1/workflows/node-types`: every node type served in the cluster now, read from the registry. */
export const nodeTypes: WorkflowsAction = {
  rest: 'GET /node-types',
  summary: 'List the loaded workflow node types with their config schemas',
  description: 'Read live from the service registry: a node-type package loaded at runtime is listed (and usable in the next saved definition) at once. `rejected` lists node-type services whose declaration the engine cannot use.',
  tags: ['workflows'],
  response: {
    type: 'object',
    properties: {
      items: { type: 'array', items: NODE_TYPE_SCHEMA },
      rejected: { type: 'array', items: { type: 'object', properties: { service: { type: 'string' }, problem: { type: 'string' } } } },
    },
    required: ['items', 'rejected'],
  },
  handler() {
    return {
      items: this.nodeTypes.list().map((e) => ({ ...e.description, service: e.service, package: e.package, nodes: e.nodes })),
      rejected: this.nodeTypes.problems(),
    };
  },
};
