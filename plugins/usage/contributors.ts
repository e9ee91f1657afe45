import type { ServiceBroker } from 'moleculer';
import { USAGE_SUMMARY_ACTION } from '../../kernel/usage-contract.ts';

/** One action that contributes to the usage summary. */
export interface UsageContributor {
  /** full action name, e.g. `tasks.usageSummary` */
  action: string;
  service: string;
  /** the capability package serving it, when the kernel tagged the service */
  package: string | null;
}

interface RegistryService {
  name: string;
  fullName?: string;
  metadata?: { $package?: unknown };
  actions?: Record<string, { name?: string; rawName?: string }>;
}

/**
 * Every available `usageSummary` action of the cluster, once each (a service running on
 * several nodes is called once, balanced by the broker), sorted by action name.
 */
export function findUsageContributors(broker: ServiceBroker): UsageContributor[] {
  const services = broker.registry.getServiceList({ onlyAvailable: true, skipInternal: true, withActions: true }) as unknown as RegistryService[];
  const found = new Map<string, UsageContributor>();
  for (const service of services) {
    for (const [key, action] of Object.entries(service.actions ?? {})) {
      const name = action.name ?? key;
      const raw = action.rawName ?? name.slice(name.lastIndexOf('.') + 1);
      if (raw !== USAGE_SUMMARY_ACTION || found.has(name)) continue;
      const pkg = service.metadata?.$package;
      found.set(name, { action: name, service: service.fullName ?? service.name, package: typeof pkg === 'string' ? pkg : null });
    }
  }
  return [...found.values()].sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
}
