import type { Context, ServiceBroker, ServiceSchema } from 'moleculer';
import type { CapabilityLoader } from './loader.ts';
import type { PackageRecord } from './record.ts';

/** Internal, on every node: this node's package table (callable across the cluster, not over HTTP). */
export function capabilitiesService(loader: CapabilityLoader): ServiceSchema {
  return {
    name: '$capabilities',
    actions: {
      list: { visibility: 'public', handler: () => loader.list() },
    },
  };
}

const packageRecord = {
  type: 'object',
  properties: {
    name: { type: 'string' }, kind: { type: ['string', 'null'] }, version: { type: ['string', 'null'] },
    roles: { type: 'array', items: { type: 'string' } }, node: { type: 'string' },
    state: { type: 'string', enum: ['loaded', 'failed', 'reload_failed', 'skipped', 'disabled', 'unloaded'] },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
    services: { type: 'array', items: { type: 'string' } }, generation: { type: 'integer' }, updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['name', 'kind', 'version', 'roles', 'node', 'state', 'error'],
};

/** `GET /api/v1/capability-packages`: every node's packages, for operators (owner or admin). */
export function capabilityPackagesService(): ServiceSchema {
  return {
    name: 'capability-packages',
    actions: {
      list: {
        rest: 'GET /',
        role: 'admin',
        summary: 'Capability packages on every node, with their state and last error',
        tags: ['operations'],
        params: {},
        response: { type: 'object', properties: { items: { type: 'array', items: packageRecord }, total: { type: 'integer' } }, required: ['items', 'total'] },
        async handler(this: { broker: ServiceBroker }, ctx: Context) {
          const nodes = this.broker.registry.getNodeList({ onlyAvailable: true, withServices: true }) as unknown as { id: string; services?: { name: string }[] }[];
          const lists = await Promise.all(
            nodes
              .filter((n) => n.services?.some((s) => s.name === '$capabilities'))
              .map((n) => (ctx.call('$capabilities.list', {}, { nodeID: n.id }) as Promise<PackageRecord[]>).catch(() => [] as PackageRecord[])),
          );
          const items = lists.flat().map(({ dir: _dir, ...rest }) => rest);
          return { items, total: items.length };
        },
      },
    },
  } as ServiceSchema;
}
