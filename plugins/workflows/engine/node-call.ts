import type { ServiceBroker } from 'moleculer';
import type { NodeTypeEntry } from './node-types.ts';
import type { Checkpoint } from '../../../kernel/nodes/durable.ts';
import type { Approval } from '../store/run-types.ts';

/** What a node's `execute` may answer; everything but `output` is optional. */
export interface NodeResult {
  output?: unknown;
  /** the subset of the step's `next` to follow (branching nodes); default: all of it */
  next?: string[];
  /** pause the run at this step */
  pause?: { kind: 'approval' | 'timer' | 'event'; seconds?: number; decision_required?: boolean; message?: string | null; event?: string | null };
  /** finish the run now */
  finish?: { status: 'completed' | 'failed'; output?: unknown; error?: string };
  /** the inline webhook response */
  respond?: { status: number; headers: Record<string, string>; body: unknown };
  /**
   * The action needs a person's approval first (a tool or connector whose policy says ask): the
   * run parks at this step with this exact invocation; once the run owner approves, only this
   * invocation is repeated, with `context.approval` set, and the node checks its policy again.
   */
  runtime_approval_required?: { reason?: string; action?: string; details?: unknown };
  /** durable nodes only: park the run until a person answers this question (the answer repeats the invocation) */
  question?: { text: string; details?: unknown };
  artifacts?: unknown[];
  child_runs?: string[];
  /** item mode (engine/item-routes.ts): target step id -> the key of `output` holding the items it receives as its input */
  route?: Record<string, string>;
  /** item mode: per output key, each item's index in the list the node was given */
  origins?: Record<string, number[]>;
}

export interface NodeCallParams {
  config: Record<string, unknown>;
  input: unknown;
  inputs: Record<string, unknown>;
  context: {
    run_id: string;
    step_id: string;
    entity_id: string;
    workspace_id: string | null;
    /** state kept across runs (dedupe) is scoped by these */
    workflow_id: string;
    binding_id: string | null;
    attempt: number;
    approval?: Approval;
    /** durable nodes (kernel/nodes/durable.ts): the checkpoints committed so far, the node driving the run, its owner */
    checkpoints?: Checkpoint[];
    engine_node?: string;
    owner_id?: string | null;
  };
}

type RawHandler = (this: unknown, ctx: unknown) => unknown;
interface LocalExecute {
  handler: RawHandler;
  service: unknown;
  endpoint: unknown;
}
type Registry = { getActionEndpoints(name: string): { localEndpoints: { action: { service?: { schema?: { actions?: Record<string, { handler?: RawHandler }> } } } }[] } | undefined };
type Factory = { create(broker: ServiceBroker, endpoint: unknown, params: unknown, opts: object): unknown };

const localExecutes = new WeakMap<NodeTypeEntry, LocalExecute | null>();

/** The node type's own `execute` handler when this node serves it (the entry object changes whenever the registry does). */
function localExecute(broker: ServiceBroker, entry: NodeTypeEntry): LocalExecute | null {
  const cached = localExecutes.get(entry);
  if (cached !== undefined) return cached;
  const endpoint = (broker.registry as unknown as Registry).getActionEndpoints(`${entry.service}.execute`)?.localEndpoints[0];
  const service = endpoint?.action.service;
  const handler = service?.schema?.actions?.execute?.handler;
  const found = endpoint && typeof handler === 'function' ? { handler, service, endpoint } : null;
  localExecutes.set(entry, found);
  return found;
}

/**
 * Calls a node type's `execute` wherever it is served. `timeoutSeconds` (the step's
 * config.timeout) bounds it when it is a positive number; missing or null means no outer
 * deadline (the node's own limits still apply).
 *
 * A node type served by this very node and called without a deadline takes a fast path: its
 * handler runs with a real context but without the per-call middlewares (validation of the
 * params the engine itself built, metrics, tracing), which cost more than most nodes' work.
 * Everything else goes through `broker.call`, on whichever node serves the type.
 */
export async function callNode(broker: ServiceBroker, entry: NodeTypeEntry, params: NodeCallParams, timeoutSeconds: unknown): Promise<{ result: NodeResult; executeMs: number }> {
  const seconds = typeof timeoutSeconds === 'number' && timeoutSeconds > 0 ? timeoutSeconds : 0;
  const started = performance.now();
  const local = seconds === 0 ? localExecute(broker, entry) : null;
  let result: NodeResult | null | undefined;
  if (local) {
    const ctx = (broker as unknown as { ContextFactory: Factory }).ContextFactory.create(broker, local.endpoint, params, {});
    result = (await local.handler.call(local.service, ctx)) as NodeResult | null | undefined;
  } else {
    result = (await broker.call(`${entry.service}.execute`, params, { timeout: seconds * 1000 })) as NodeResult | null | undefined;
  }
  const executeMs = performance.now() - started;
  if (!result || typeof result !== 'object') return { result: { output: result ?? null }, executeMs };
  return { result, executeMs };
}
