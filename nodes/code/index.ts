import type { Context, Service } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { NodeStepError, requireContext, type NodeRunContext } from '../../kernel/nodes/model-step.ts';
import { SANDBOX_CANCEL_EVENT, SANDBOX_RUN_ACTION, type SandboxDialect, type SandboxLanguage, type SandboxRunParams, type SandboxRunResult } from '../../kernel/sandbox-contract.ts';
import { codeNodeType, configuredLanguages } from './declaration.ts';

interface CodeConfig {
  code: string;
  language?: SandboxLanguage;
  dialect?: SandboxDialect;
  input?: unknown;
  timeout?: number | null;
}

/** A sandbox failure as the step's: its code and message; the sandbox missing is said plainly. */
function stepError(err: unknown): NodeStepError {
  if (err instanceof NodeStepError) return err;
  const e = err as { name?: string; type?: string; message?: string };
  if (e?.name === 'ServiceNotFoundError' || e?.name === 'ServiceNotAvailableError') return new NodeStepError('The sandbox service is not running on any node: no code can run.', 'SANDBOX_UNAVAILABLE');
  return new NodeStepError(String(e?.message ?? err).slice(0, 2000), typeof e?.type === 'string' && e.type ? e.type : 'SANDBOX_ERROR');
}

/** An n8n Code node's answer as items: the json of each `{json}` (or the object itself); in mode each, the one item. */
function n8nItems(result: unknown, each: boolean): unknown {
  const jsonOf = (x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) && 'json' in x ? (x as { json: unknown }).json : x);
  if (each) return jsonOf(Array.isArray(result) ? result[0] ?? null : result);
  if (result === null || result === undefined) return [];
  return (Array.isArray(result) ? result : [result]).map(jsonOf);
}

type CodeParams = { config: CodeConfig; input?: unknown; context?: unknown };

/**
 * An n8n dialect input with what only the run knows: `$workflow.id` (the run's workflow),
 * `$workflow.active` (whether the run comes from a binding, a deployment with a live trigger)
 * and `$execution.id` (the run's id). An input that is not an object is left as it is.
 */
function withRun(input: unknown, context: NodeRunContext): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const given = (input as { workflow?: unknown }).workflow;
  const workflow = given !== null && typeof given === 'object' && !Array.isArray(given) ? given : {};
  return { ...input, workflow: { ...workflow, id: context.workflow_id ?? null, active: typeof context.binding_id === 'string' && context.binding_id !== '' }, execution: { id: context.run_id || null } };
}

/** One snippet run; an abort of `signal` (a run interrupt) cancels it in the sandbox at once. */
async function runCode(ctx: Context<CodeParams>, signal: AbortSignal): Promise<unknown> {
  const { config } = ctx.params;
  const context = requireContext(ctx.params.context);
  const executionId = `${context.run_id || 'standalone'}:${context.step_id}:${context.attempt ?? 1}:${ctx.id}`;
  const cancel = (): void => void Promise.resolve(ctx.broadcast(SANDBOX_CANCEL_EVENT, { execution_id: executionId })).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const given = config.input ?? ctx.params.input ?? null;
    const params: SandboxRunParams = {
      language: config.language ?? 'javascript',
      code: config.code,
      dialect: config.dialect ?? 'plain',
      input: config.dialect === 'n8n' ? withRun(given, context) : given,
      execution_id: executionId,
      entity_id: context.entity_id,
      ...(typeof config.timeout === 'number' && config.timeout > 0 ? { timeout_ms: Math.ceil(config.timeout * 1000) } : {}),
    };
    // the sandbox bounds the run; the engine bounds the step (config.timeout)
    const out = await ctx.call<SandboxRunResult, SandboxRunParams>(SANDBOX_RUN_ACTION, params, { timeout: 0 });
    if (params.dialect === 'n8n') return { output: n8nItems(out.result, (params.input as { mode?: unknown } | null)?.mode === 'each') };
    return { output: out.result };
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw stepError(err);
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/**
 * Workflow node type `code`: the snippet runs in the sandbox service through the broker
 * (kernel/sandbox-contract.ts), wherever that is served. A cancel of the run
 * (`workflows.run.interrupt`) stops the snippet at once; `config.timeout` lowers the sandbox's
 * own limit. The declaration narrows `language` to what this deployment can run.
 */
export default {
  ...interruptibleNodeService<CodeParams>(codeNodeType(), (params) => requireContext(params.context).run_id, runCode),
  created(this: Service) {
    // the loader gave this service its own metadata object: narrowing it here changes only this node's registry entry
    this.metadata.nodeType = codeNodeType(configuredLanguages(kernelOf(this.broker).config.env.SANDBOX_DOCKER_HOST));
  },
};
