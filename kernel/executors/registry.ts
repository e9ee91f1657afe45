import type { ServiceBroker } from 'moleculer';
import { EXECUTOR_NAME_PATTERN, EXECUTOR_SERVICE_PREFIX, type ExecutorDeclaration } from '../jobs-contract.ts';

type ServiceEntry = { name: string; fullName?: string; metadata?: Record<string, unknown> };

/**
 * The job executors served anywhere in the cluster right now, by name, read from the service
 * registry on each call: an executor package hot-loaded a moment ago is usable at once, an
 * unloaded one is gone (a job naming it then fails to save, and its runs fail with the reason).
 */
export function listExecutors(broker: ServiceBroker): Map<string, ExecutorDeclaration> {
  const services = broker.registry.getServiceList({ onlyAvailable: true, grouping: true }) as unknown as ServiceEntry[];
  const found = new Map<string, ExecutorDeclaration>();
  for (const svc of services) {
    const service = svc.fullName ?? svc.name;
    if (!service.startsWith(EXECUTOR_SERVICE_PREFIX)) continue;
    const declared = svc.metadata?.executor as ExecutorDeclaration | undefined;
    if (!declared || typeof declared.name !== 'string' || !EXECUTOR_NAME_PATTERN.test(declared.name)) continue;
    if (service !== `${EXECUTOR_SERVICE_PREFIX}${declared.name}`) continue;
    found.set(declared.name, declared);
  }
  return found;
}

export function findExecutor(broker: ServiceBroker, name: string): ExecutorDeclaration | undefined {
  return listExecutors(broker).get(name);
}
