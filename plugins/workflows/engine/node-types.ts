import type { ServiceBroker } from 'moleculer';
import { unsupportedKeywords, type Schema } from '../../../kernel/json-schema/validate.ts';
import { NODE_SIDE_EFFECTS, type NodeTypeDeclaration } from '../../../kernel/nodes/contract.ts';

/**
 * The node-type contract (kernel/nodes/contract.ts): what a package of kind `node` declares in
 * its service `metadata.nodeType`, next to an `execute` action. The engine knows node types only
 * through this; it never names one.
 */
export type NodeTypeDescription = NodeTypeDeclaration<Schema>;

export interface NodeTypeEntry {
  description: NodeTypeDescription;
  /** the service whose `execute` action runs it */
  service: string;
  package: string | null;
  nodes: string[];
}

type ServiceEntry = { name: string; fullName?: string; nodes?: string[]; metadata?: Record<string, unknown> };

/** Why a declared description cannot be used, or undefined. */
export function descriptionProblem(d: unknown): string | undefined {
  if (!d || typeof d !== 'object') return 'metadata.nodeType is not an object';
  const desc = d as Partial<NodeTypeDescription>;
  if (typeof desc.type !== 'string' || !/^[a-z][a-z0-9_.-]{0,63}$/.test(desc.type)) return 'type must be a lower-case name';
  if (typeof desc.category !== 'string') return 'category is missing';
  if (!desc.config_schema || typeof desc.config_schema !== 'object') return 'config_schema is missing';
  const unsupported = unsupportedKeywords(desc.config_schema);
  if (unsupported.length) return `config_schema uses keywords the engine does not check: ${unsupported.join(', ')}`;
  if (!Array.isArray(desc.outputs)) return 'outputs must be an array';
  if (desc.side_effect !== undefined && !(NODE_SIDE_EFFECTS as readonly string[]).includes(desc.side_effect)) return `side_effect must be one of ${NODE_SIDE_EFFECTS.join(', ')}`;
  return undefined;
}

/** Node types read from the service registry, cached until the registry changes. */
export class NodeTypeRegistry {
  private cache?: Map<string, NodeTypeEntry>;
  private rejected: { service: string; problem: string }[] = [];

  constructor(private readonly broker: ServiceBroker) {}

  invalidate(): void {
    this.cache = undefined;
  }

  private load(): Map<string, NodeTypeEntry> {
    if (this.cache) return this.cache;
    const services = this.broker.registry.getServiceList({ onlyAvailable: true, grouping: true }) as unknown as ServiceEntry[];
    const found = new Map<string, NodeTypeEntry>();
    const rejected: { service: string; problem: string }[] = [];
    for (const svc of [...services].sort((a, b) => (a.fullName ?? a.name).localeCompare(b.fullName ?? b.name))) {
      if (svc.metadata?.$kind !== 'node' && svc.metadata?.nodeType === undefined) continue;
      const service = svc.fullName ?? svc.name;
      const problem = descriptionProblem(svc.metadata?.nodeType);
      if (problem) {
        rejected.push({ service, problem });
        continue;
      }
      const description = svc.metadata!.nodeType as NodeTypeDescription;
      if (found.has(description.type)) {
        rejected.push({ service, problem: `type '${description.type}' is already served by ${found.get(description.type)!.service}` });
        continue;
      }
      found.set(description.type, { description, service, package: typeof svc.metadata?.$package === 'string' ? svc.metadata.$package : null, nodes: [...(svc.nodes ?? [])].sort() });
    }
    this.cache = found;
    this.rejected = rejected;
    return found;
  }

  get(type: string): NodeTypeEntry | undefined {
    return this.load().get(type);
  }

  list(): NodeTypeEntry[] {
    return [...this.load().values()].sort((a, b) => a.description.type.localeCompare(b.description.type));
  }

  problems(): { service: string; problem: string }[] {
    this.load();
    return this.rejected;
  }
}

/** Whether this step, with this config, has an uncertain external effect. */
export function hasUncertainEffect(desc: NodeTypeDescription, config: Record<string, unknown>): boolean {
  const u = desc.uncertain_effect;
  if (typeof u === 'boolean') return u;
  if (!u || typeof u !== 'object') return false;
  const value = config[u.config_key];
  return u.values.includes(String(value ?? '').toUpperCase()) || u.values.includes(String(value ?? ''));
}
