import type { ServiceBroker } from 'moleculer';
import { TOOL_SERVICE_PREFIX, type ToolDeclaration } from '../tools-contract.ts';
import { declarationProblems } from './declaration.ts';

export interface RegisteredTool {
  declaration: ToolDeclaration;
  /** `tool.<name>`: call `<service>.execute` */
  service: string;
  package: string | null;
  /** nodes serving it now */
  nodes: string[];
}

export interface RejectedTool {
  service: string;
  package: string | null;
  /** why the tool is left out (for listings and operators) */
  reason: string;
}

export interface ToolScan {
  tools: RegisteredTool[];
  rejected: RejectedTool[];
}

type ServiceEntry = { name: string; fullName?: string; nodes?: string[]; nodeID?: string; metadata?: Record<string, unknown> };

/**
 * The tools served anywhere in the cluster right now, read from the service registry on each
 * call (no cache: a tool package loaded a moment ago is usable at once, one unloaded is gone).
 * A service counts when its package is of kind `tool` (the kernel tags `metadata.$kind`) or its
 * name starts with `tool.`; one whose declaration is malformed or whose name is not
 * `tool.<declaration.name>` (a versioned service included) is rejected with the reason.
 */
export function scanTools(broker: ServiceBroker): ToolScan {
  const services = broker.registry.getServiceList({ onlyAvailable: true, grouping: true }) as unknown as ServiceEntry[];
  const tools: RegisteredTool[] = [];
  const rejected: RejectedTool[] = [];
  for (const svc of [...services].sort((a, b) => (a.fullName ?? a.name).localeCompare(b.fullName ?? b.name))) {
    const service = svc.fullName ?? svc.name;
    if (svc.metadata?.$kind !== 'tool' && !service.startsWith(TOOL_SERVICE_PREFIX)) continue;
    const pkg = typeof svc.metadata?.$package === 'string' ? svc.metadata.$package : null;
    const declared = svc.metadata?.tool;
    const problems = declarationProblems(declared);
    const reject = (reason: string) => rejected.push({ service, package: pkg, reason });
    if (problems.length) {
      reject(declared === undefined ? 'the service declares no metadata.tool' : `invalid declaration: ${problems.join('; ')}`);
      continue;
    }
    const declaration = declared as ToolDeclaration;
    if (service !== `${TOOL_SERVICE_PREFIX}${declaration.name}`) {
      reject(`the service of tool '${declaration.name}' must be named '${TOOL_SERVICE_PREFIX}${declaration.name}'`);
      continue;
    }
    tools.push({ declaration, service, package: pkg, nodes: [...(svc.nodes ?? (svc.nodeID ? [svc.nodeID] : []))].sort() });
  }
  tools.sort((a, b) => a.declaration.name.localeCompare(b.declaration.name));
  return { tools, rejected };
}

/** The declarations of the tools available now, by name (malformed ones left out: see scanTools). */
export function listTools(broker: ServiceBroker): ToolDeclaration[] {
  return scanTools(broker).tools.map((t) => t.declaration);
}

/** One available tool by name, or undefined. */
export function findTool(broker: ServiceBroker, name: string): RegisteredTool | undefined {
  return scanTools(broker).tools.find((t) => t.declaration.name === name);
}
