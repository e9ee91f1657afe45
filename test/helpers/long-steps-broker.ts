import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ServiceBroker } from 'moleculer';
import { attachKernel, type KernelContext } from '../../kernel/context.ts';
import { WORKFLOWS_INTERRUPT_EVENT } from '../../kernel/nodes/durable.ts';
import { LocalDiskObjectStore } from '../../kernel/objects/local-disk.ts';

/**
 * A bare broker serving node types whose steps can run long, with what they wait on standing
 * in for the real thing and never answering: a models service whose stream never ends, a
 * workflows service whose child runs never finish, an HTTP server that never responds. Each
 * says when a step reached it (`underway`), so a cancel is sent while the step waits there.
 */
export interface LongStepsBroker {
  broker: ServiceBroker;
  /** the never-answering HTTP server's base URL (127.0.0.1 is opened to the http node) */
  slowUrl: string;
  /** resolves when the next model call, child run or HTTP request of a step arrives */
  underway(what: 'model' | 'child' | 'request'): Promise<unknown>;
  /** the step failure (`{type, message}`) a call of `node.<type>.execute` in run `runId` ends with */
  failure(type: string, config: Record<string, unknown>, input: unknown, runId: string): Promise<{ type: string; message: string }>;
  interrupt(runId: string): void;
  close(): Promise<void>;
}

function fakeModels(arrivals: EventEmitter) {
  return {
    name: 'models',
    actions: {
      generateStream() {
        arrivals.emit('model');
        // a provider that never answers: only the step's timeout or cancel ends the wait
        return new Readable({ read() {} });
      },
    },
  };
}

function fakeWorkflows(arrivals: EventEmitter) {
  return {
    name: 'workflows',
    actions: {
      childRuns: () => ({ children: [], in_loop_body: false }),
      childPlan: (ctx: { params: { workflow_id: string } }) => ({ workflow_id: ctx.params.workflow_id, version: 1, snapshot_hash: 'c'.repeat(64), depth: 1 }),
      checkpoint: () => ({ stop: false }),
      startChildRun(ctx: { params: { child_run_id: string } }) {
        arrivals.emit('child');
        return { run_id: ctx.params.child_run_id, status: 'running' };
      },
      // as the real one: waits `seconds` for the child, which never finishes
      async awaitRun(ctx: { params: { run_id: string; seconds: number } }) {
        await new Promise((r) => setTimeout(r, ctx.params.seconds * 1000));
        return { id: ctx.params.run_id, status: 'running', output: null, error: null };
      },
      cancelRun: () => ({ cancelled: true }),
    },
  };
}

export async function startLongStepsBroker(services: object[]): Promise<LongStepsBroker> {
  const arrivals = new EventEmitter();
  const server: Server = createServer((req) => arrivals.emit('request', req.url));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dir = mkdtempSync(join(tmpdir(), 'long-steps-objects-'));
  const broker = new ServiceBroker({ logger: false, nodeID: `long-steps-${process.pid}` });
  for (const s of [...services, fakeModels(arrivals), fakeWorkflows(arrivals)]) broker.createService(s as never);
  const env = { WORKFLOW_HTTP_ALLOW: ['127.0.0.1'], WORKFLOW_HTTP_TIMEOUT_SECONDS: 600, WORKFLOW_HTTP_MAX_RESPONSE_BYTES: 1_000_000 };
  attachKernel(broker, { objects: new LocalDiskObjectStore({ dir }), config: { env } } as unknown as KernelContext);
  await broker.start();
  return {
    broker,
    slowUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    underway: (what) => once(arrivals, what),
    async failure(type, config, input, runId) {
      const context = { run_id: runId, step_id: 's', entity_id: 'e-1', workspace_id: null, attempt: 1, engine_node: broker.nodeID, checkpoints: [] };
      try {
        await broker.call(`node.${type}.execute`, { config, input, inputs: {}, context });
      } catch (err) {
        const e = err as { type?: string; message: string };
        return { type: e.type ?? 'NONE', message: e.message };
      }
      throw new Error(`node.${type} finished instead of failing`);
    },
    interrupt(runId) {
      void broker.broadcastLocal(WORKFLOWS_INTERRUPT_EVENT, { run_id: runId, reason: 'cancelled by its owner' });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
