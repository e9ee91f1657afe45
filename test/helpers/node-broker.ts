import { ServiceBroker } from 'moleculer';

export interface NodeBroker {
  broker: ServiceBroker;
  /** calls `node.<type>.execute` as the engine does (a run context for run `r-1` unless given) */
  exec(type: string, config: Record<string, unknown>, input?: unknown, context?: Record<string, unknown>): Promise<any>;
  /** the step failure a call ends with: `{type, message}` */
  failure(type: string, config: Record<string, unknown>, input?: unknown, context?: Record<string, unknown>): Promise<{ type: string; message: string }>;
  close(): Promise<void>;
}

/** A bare broker serving the given node-type services: a node's own tests, without a database. */
export async function startNodeBroker(services: object[]): Promise<NodeBroker> {
  const broker = new ServiceBroker({ logger: false, nodeID: `nodes-${process.pid}` });
  for (const s of services) broker.createService(s as never);
  await broker.start();
  const exec: NodeBroker['exec'] = (type, config, input = null, context = {}) =>
    broker.call(`node.${type}.execute`, { config, input, inputs: {}, context: { run_id: 'r-1', step_id: 's', entity_id: 'e-1', workspace_id: null, attempt: 1, ...context } });
  return {
    broker,
    exec,
    async failure(type, config, input, context) {
      try {
        await exec(type, config, input, context);
      } catch (err) {
        const e = err as { type?: string; message: string };
        return { type: e.type ?? 'NONE', message: e.message };
      }
      throw new Error(`node.${type} did not fail`);
    },
    close: () => broker.stop(),
  };
}
