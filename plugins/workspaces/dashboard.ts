import type { Context, ServiceBroker } from 'moleculer';
import { WORKSPACE_DASHBOARD_ACTION, WORKSPACE_DASHBOARD_TIMEOUT_MS, type WorkspaceDashboardParams } from '../../kernel/workspace-contracts.ts';

type Logger = ReturnType<ServiceBroker['getLogger']>;
type ServiceEntry = { name: string; fullName?: string; actions?: Record<string, unknown> };

export type Contribution = Record<string, unknown> | { error: string };

/**
 * The full names of every `workspaceDashboard` action in the registry now (one per service,
 * whichever nodes serve it), so a package loaded a moment ago already contributes.
 */
export function dashboardContributors(broker: ServiceBroker): { service: string; action: string }[] {
  const services = broker.registry.getServiceList({ onlyAvailable: true, withActions: true, grouping: true }) as unknown as ServiceEntry[];
  const found = new Map<string, string>();
  for (const svc of services) {
    const fullName = svc.fullName ?? svc.name;
    const action = `${fullName}.${WORKSPACE_DASHBOARD_ACTION}`;
    if (svc.actions && action in svc.actions) found.set(fullName, action);
  }
  return [...found].sort(([a], [b]) => a.localeCompare(b)).map(([service, action]) => ({ service, action }));
}

/**
 * Calls every contributor in parallel, each within the timeout, and keys the answers by
 * service. A failure becomes `{ error }` for that service only: the dashboard is best effort.
 */
export async function collectDashboard(ctx: Context, broker: ServiceBroker, logger: Logger, params: WorkspaceDashboardParams): Promise<Record<string, Contribution>> {
  const contributors = dashboardContributors(broker);
  const answers = await Promise.all(
    contributors.map(async ({ service, action }): Promise<[string, Contribution]> => {
      try {
        const result = await ctx.call(action, params, { timeout: WORKSPACE_DASHBOARD_TIMEOUT_MS });
        return [service, isPlainObject(result) ? result : { value: result ?? null }];
      } catch (err) {
        logger.warn({ err, service, workspace_id: params.workspace_id }, 'a workspace dashboard contribution failed');
        return [service, { error: describeFailure(err) }];
      }
    }),
  );
  return Object.fromEntries(answers);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Says what went wrong without passing on a server error's internals (those are logged). */
function describeFailure(err: unknown): string {
  const e = err as { type?: unknown; code?: unknown; message?: unknown };
  if (e.type === 'REQUEST_TIMEOUT') return `no answer within ${WORKSPACE_DASHBOARD_TIMEOUT_MS} ms`;
  if (e.type === 'SERVICE_NOT_FOUND' || e.type === 'SERVICE_NOT_AVAILABLE') return 'the contributing service is not available';
  if (typeof e.code === 'number' && e.code >= 400 && e.code < 500 && typeof e.message === 'string') return e.message;
  return 'the contribution failed; the server log has the details';
}
