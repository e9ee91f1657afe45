import type { ServiceBroker } from 'moleculer';

export type CapabilityKind = 'tool' | 'node' | 'channel';

export interface CapabilityEntry {
  service: string;
  package: string | null;
  kind: CapabilityKind;
  /** what the service declares about itself: `metadata.tool`, `metadata.nodeType` or `metadata.channel` */
  description: Record<string, unknown> | null;
  /** nodes serving it now */
  nodes: string[];
}

export interface Capabilities {
  tools: CapabilityEntry[];
  node_types: CapabilityEntry[];
  channels: CapabilityEntry[];
}

const DESCRIPTION_KEY: Record<CapabilityKind, string> = { tool: 'tool', node: 'nodeType', channel: 'channel' };
const GROUP: Record<CapabilityKind, keyof Capabilities> = { tool: 'tools', node: 'node_types', channel: 'channels' };

type ServiceEntry = { name: string; fullName?: string; nodes?: string[]; nodeID?: string; metadata?: Record<string, unknown> };

/**
 * The tools, workflow node types and channels served anywhere in the cluster right now, read
 * from the registry on each call: the kernel tags every package's services with `$package`
 * and `$kind`, so a package loaded or unloaded a moment ago is already reflected.
 */
export function liveCapabilities(broker: ServiceBroker): Capabilities {
  const services = broker.registry.getServiceList({ onlyAvailable: true, grouping: true }) as unknown as ServiceEntry[];
  const result: Capabilities = { tools: [], node_types: [], channels: [] };
  for (const svc of services) {
    const kind = svc.metadata?.$kind;
    if (kind !== 'tool' && kind !== 'node' && kind !== 'channel') continue;
    const declared = svc.metadata?.[DESCRIPTION_KEY[kind]];
    result[GROUP[kind]].push({
      service: svc.fullName ?? svc.name,
      package: typeof svc.metadata?.$package === 'string' ? svc.metadata.$package : null,
      kind,
      description: declared && typeof declared === 'object' && !Array.isArray(declared) ? (declared as Record<string, unknown>) : null,
      nodes: [...(svc.nodes ?? (svc.nodeID ? [svc.nodeID] : []))].sort(),
    });
  }
  for (const list of Object.values(result) as CapabilityEntry[][]) list.sort((a, b) => a.service.localeCompare(b.service));
  return result;
}

const entrySchema = {
  type: 'object',
  properties: {
    service: { type: 'string' },
    package: { type: ['string', 'null'] },
    kind: { type: 'string', enum: ['tool', 'node', 'channel'] },
    description: { type: ['object', 'null'] },
    nodes: { type: 'array', items: { type: 'string' } },
  },
  required: ['service', 'package', 'kind', 'description', 'nodes'],
};

export const CAPABILITIES_SCHEMA = {
  type: 'object',
  properties: {
    workspace_id: { type: 'string', format: 'uuid' },
    tools: { type: 'array', items: entrySchema },
    node_types: { type: 'array', items: entrySchema },
    channels: { type: 'array', items: entrySchema },
  },
  required: ['workspace_id', 'tools', 'node_types', 'channels'],
};
