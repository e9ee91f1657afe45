import type { Context } from 'moleculer';
import type { Readable } from 'node:stream';
import { MODELS_GENERATE_STREAM_ACTION, readGenerateStream, type GenerateParams, type GenerateResult, type GenerateStreamParams } from '../models-generate-contract.ts';
import type { NodeTypeDeclaration } from './contract.ts';
import { interruptibleNodeService } from './interruptible.ts';
import type { Checkpoint, DurableDecision } from './durable.ts';

/**
 * Shared by the AI workflow node types (nodes/llm, nodes/classifier, nodes/extract, nodes/tool):
 * the run context the engine passes, the identity a node acts as, one abortable model turn
 * through `models.generateStream`, and the step failure they throw.
 */

/** The `context` the engine passes to `execute` (durable nodes also get checkpoints, engine_node, owner_id). */
export interface NodeRunContext {
  run_id: string;
  step_id: string;
  entity_id: string;
  workspace_id: string | null;
  workflow_id?: string | null;
  binding_id?: string | null;
  attempt?: number;
  owner_id?: string | null;
  engine_node?: string;
  checkpoints?: Checkpoint[];
  approval?: DurableDecision & { decision: string };
}

import { NodeStepError } from './step-error.ts';

export { NodeStepError };

/** The identity a node calls other packages as: the run's entity (and its owner when the engine says who that is). */
export function callerMeta(context: NodeRunContext): { user: { id: string | null; entity_id: string; role: 'member' } } {
  return { user: { id: context.owner_id ?? null, entity_id: context.entity_id, role: 'member' } };
}

/** Missing context (a node called outside the engine) is a step failure, not a crash. */
export function requireContext(context: unknown): NodeRunContext {
  const c = context as Partial<NodeRunContext> | undefined;
  if (!c || typeof c.entity_id !== 'string' || !c.entity_id) throw new NodeStepError('The node runs only inside a workflow run (no run context was given).', 'NO_RUN_CONTEXT');
  return { run_id: '', step_id: '', workspace_id: null, ...c } as NodeRunContext;
}

export interface ModelTurnOptions {
  /** usage attribution: `node.llm`, `node.classifier`, ... */
  purpose: string;
  /** config.timeout (seconds): past it the provider call is aborted */
  timeoutSeconds?: unknown;
  /** aborts the call (a run interrupt) */
  signal?: AbortSignal;
}

const MAX_MESSAGE = 2000;

/** A failed `models.*` call (thrown before the stream, or its error line) as a step failure. */
export function modelStepError(err: unknown): NodeStepError {
  if (err instanceof NodeStepError) return err;
  const e = err as { message?: string; type?: string; name?: string; data?: { errors?: { message?: string }[] } };
  if (e?.name === 'ServiceNotFoundError' || e?.name === 'ServiceNotAvailableError') return new NodeStepError('The models package is not loaded: no model can be asked.', 'MODELS_UNAVAILABLE');
  const details = Array.isArray(e?.data?.errors) ? e.data.errors.map((x) => x?.message).filter(Boolean).join('; ') : '';
  const message = [e?.message ?? String(err), details].filter(Boolean).join(' ');
  return new NodeStepError(message.slice(0, MAX_MESSAGE), typeof e?.type === 'string' && e.type ? e.type : 'MODEL_ERROR');
}

/**
 * One model turn, streamed so it can be aborted (destroying the stream aborts the provider
 * call): on config.timeout, or when `signal` aborts. Resolves with the turn; rejects with a
 * NodeStepError carrying the models error code (MODELS_ERR_OUTPUT_INVALID keeps `problems` and
 * `text` in its data, for a repair turn). Usage is recorded by models (purpose, workspace, run).
 */
export async function modelTurn(ctx: Context, context: NodeRunContext, params: GenerateParams, opts: ModelTurnOptions): Promise<GenerateResult> {
  const seconds = typeof opts.timeoutSeconds === 'number' && opts.timeoutSeconds > 0 ? opts.timeoutSeconds : 0;
  const signals = [opts.signal, seconds ? AbortSignal.timeout(seconds * 1000) : undefined].filter((s): s is AbortSignal => Boolean(s));
  const signal = signals.length ? AbortSignal.any(signals) : undefined;
  const abortError = (): NodeStepError =>
    signal?.reason instanceof NodeStepError ? signal.reason : new NodeStepError(`The model call did not finish within the step's timeout of ${seconds} s.`, 'STEP_TIMEOUT');
  if (signal?.aborted) throw abortError();
  const full: GenerateStreamParams = { ...params, purpose: opts.purpose, workspace_id: context.workspace_id ?? undefined, run_id: context.run_id || undefined, local_objects: true };
  let stream: Readable;
  try {
    stream = await ctx.call<Readable, GenerateStreamParams>(MODELS_GENERATE_STREAM_ACTION, full, { meta: callerMeta(context), timeout: 0 });
  } catch (err) {
    throw modelStepError(err);
  }
  // aborted while the call was being set up: its listener below would never fire
  if (signal?.aborted) {
    stream.destroy();
    throw abortError();
  }
  const stop = (): void => void stream.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of readGenerateStream(stream)) {
      if (signal?.aborted) throw abortError();
      if (line.type === 'done') {
        const { type: _type, ...turn } = line;
        return turn;
      }
      if (line.type === 'error') {
        throw new NodeStepError(line.message.slice(0, MAX_MESSAGE), line.code, { status: line.status, problems: line.problems ?? [], text: line.text ?? '' });
      }
    }
    throw new NodeStepError('The model stream ended without an answer.', 'MODELS_ERR_STREAM_CUT');
  } catch (err) {
    if (signal?.aborted) throw abortError();
    throw modelStepError(err);
  } finally {
    signal?.removeEventListener('abort', stop);
    if (!stream.destroyed) stream.destroy();
  }
}

/** A step's text input as the model reads it: a string as is, anything else as its JSON. */
export function inputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value, null, 2);
}

/** config_schema of `timeout`, shared by every AI node. */
export const TIMEOUT_SCHEMA = {
  type: ['number', 'null'],
  exclusiveMinimum: 0,
  maximum: 3600,
  default: null,
  description: 'Seconds the step may take; past it the model call is aborted and the step fails with STEP_TIMEOUT (null: no outer deadline; the models package still bounds each call by MODEL_REQUEST_TIMEOUT_SECONDS).',
  examples: [60],
} as const;

/** config_schema of `model` and `api_key_id`, shared by the model-calling nodes. */
export const MODEL_KEYS_SCHEMA = {
  model: { type: ['string', 'null'], minLength: 1, maxLength: 200, default: null, description: "Model name (null: the key's default model).", examples: ['gpt-4o-mini'] },
  api_key_id: { type: ['string', 'null'], minLength: 1, maxLength: 64, default: null, description: "Model provider key (null: the entity's default key, /api/v1/api-keys).", examples: ['0197c0de-5a1e-7000-8000-000000000001'] },
} as const;

/** What a model-calling node's `execute` gets: the params, the broker context, and the signal a run interrupt aborts. */
export type ModelNodeExecute<C> = (ctx: Context, params: { config: C; input?: unknown; context: NodeRunContext }, signal: AbortSignal) => Promise<unknown>;

/**
 * The service of a model-calling node type: `node.<type>` with the declaration, an `execute`
 * whose model calls a `workflows.run.interrupt` of its run aborts, and that event's handler.
 */
export function defineModelNodeType<C>(nodeType: NodeTypeDeclaration, execute: ModelNodeExecute<C>) {
  return interruptibleNodeService<{ config: C; input?: unknown; context?: unknown }>(
    nodeType,
    (params) => requireContext(params.context).run_id,
    (ctx, signal) => execute(ctx, { config: ctx.params.config, input: ctx.params.input, context: requireContext(ctx.params.context) }, signal),
  );
}
