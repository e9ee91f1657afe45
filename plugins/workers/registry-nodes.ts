import type { ServiceBroker } from 'moleculer';
import { readNodeMetadata, type NodeDetails } from './node-metadata.ts';

/** One node as the broker registry of this node sees it. */
export interface NodeSighting extends NodeDetails {
  worker_id: string;
  /** the node answering this request */
  local: boolean;
  /** connected and heartbeating over the transporter (moleculer marks it unavailable after heartbeatTimeout or a disconnect) */
  available: boolean;
  /** seconds since its last transporter heartbeat; 0 for the local node */
  age_seconds: number;
  hostname: string | null;
  /** calls and jobs in progress, known live for the local node only */
  in_flight: number | null;
}

/** The fields of `registry.getNodeList()` entries that are read here. */
interface RegistryNode {
  id: string;
  local?: boolean;
  available?: boolean;
  /** process.uptime() (rounded seconds) of THIS process when the node's last heartbeat arrived */
  lastHeartbeatTime?: number;
  hostname?: string | null;
  metadata?: unknown;
}

/**
 * Every node the registry knows, connected or not. The registry only knows nodes that were
 * seen since this process started; heartbeat rows cover the rest.
 */
export function nodeSightings(broker: ServiceBroker, localInFlight: number): NodeSighting[] {
  const nodes = broker.registry.getNodeList({ onlyAvailable: false, withServices: false }) as unknown as RegistryNode[];
  const uptime = process.uptime();
  return nodes.map((node) => {
    const local = node.local === true || node.id === broker.nodeID;
    const heardAt = typeof node.lastHeartbeatTime === 'number' ? node.lastHeartbeatTime : uptime;
    return {
      worker_id: node.id,
      local,
      available: local || node.available !== false,
      age_seconds: local ? 0 : Math.max(0, uptime - heardAt),
      hostname: typeof node.hostname === 'string' && node.hostname ? node.hostname : null,
      in_flight: local ? localInFlight : null,
      ...readNodeMetadata(node.metadata),
    };
  });
}
