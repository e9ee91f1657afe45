import type { Context, Service } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { NODE_EXECUTE_PARAMS } from '../../kernel/nodes/contract.ts';
import { WORKFLOWS_INTERRUPT_EVENT } from '../../kernel/nodes/durable.ts';
import { NodeStepError, requireContext, RunAborts } from '../../kernel/nodes/model-step.ts';
import { SANDBOX_CANCEL_EVENT, SANDBOX_RUN_ACTION, type SandboxDialect, type SandboxLanguage, type SandboxRunParams, type SandboxRunResult } from '../../kernel/sandbox-contract.ts';
import { codeNodeType, configuredLanguages } from './declaration.ts';

interface CodeConfig {
  code: string;
  language?: SandboxLanguage;
  dialect?: SandboxDialect;
  input?: unknown;
  timeout?: number | null;
}

type CodeNodeService = Service & { aborts: RunAborts };

/** A sandbox failure as the step's: its code and message; the sandbox missing is said plainly. */
function stepError(err: unknown): NodeStepError {
  if (err instanceof NodeStepError) return err;
  const e = err as { name?: string; type?: string; message?: string };
  if (e?.name === 'ServiceNotFoundError' || e?.name === 'ServiceNotAvailableError') return new NodeStepError('The sandbox service is not running on any node: no code can run.', 'SANDBOX_UNAVAILABLE');
  return new NodeStepError(String(e?.message ?? err).slice(0, 2000), typeof e?.type === 'string' && e.type ? e.type : 'SANDBOX_ERROR');
}

/**
 * Workflow node type `code`: the snippet runs in the sandbox service through the broker
 * (kernel/sandbox-contract.ts), wherever that is served. A cancel of the run
 * (`workflows.run.interrupt`) stops the snippet at once; `config.timeout` lowers the sandbox's
 * own limit. The declaration narrows `language` to what this deployment can run.
 */
export default {
  name: 'node.code',
  metadata: { nodeType: codeNodeType() },
  actions: {
    execute: {
      visibility: 'public',
      // the sandbox bounds the run; the engine bounds the step (config.timeout)
      timeout: 0,
      params: NODE_EXECUTE_PARAMS,
      async handler(this: CodeNodeService, ctx: Context<{ config: CodeConfig; input?: unknown; context?: unknown }>) {
        const { config } = ctx.params;
        const context = requireContext(ctx.params.context);
        const executionId = `${context.run_id || 'standalone'}:${context.step_id}:${context.attempt ?? 1}:${ctx.id}`;
        const tracked = this.aborts.track(context.run_id);
        const cancel = (): void => void Promise.resolve(ctx.broadcast(SANDBOX_CANCEL_EVENT, { execution_id: executionId })).catch(() => undefined);
        tracked.signal.addEventListener('abort', cancel, { once: true });
        try {
          const params: SandboxRunParams = {
            language: config.language ?? 'javascript',
            code: config.code,
            dialect: config.dialect ?? 'plain',
            input: 'input' in config ? config.input : (ctx.params.input ?? null),
            execution_id: executionId,
            entity_id: context.entity_id,
            ...(typeof config.timeout === 'number' && config.timeout > 0 ? { timeout_ms: Math.ceil(config.timeout * 1000) } : {}),
          };
          const out = await ctx.call<SandboxRunResult, SandboxRunParams>(SANDBOX_RUN_ACTION, params, { timeout: 0 });
          return { output: out.result };
        } catch (err) {
          if (tracked.signal.aborted) throw tracked.signal.reason;
          throw stepError(err);
        } finally {
          tracked.signal.removeEventListener('abort', cancel);
          tracked.release();
        }
      },
    },
  },
  events: {
    [WORKFLOWS_INTERRUPT_EVENT](this: CodeNodeService, ctx: Context<{ run_id?: unknown; reason?: unknown }>) {
      if (typeof ctx.params?.run_id === 'string' && ctx.params.run_id) this.aborts.interrupt(ctx.params.run_id, String(ctx.params.reason ?? 'the run was interrupted'));
    },
  },
  created(this: CodeNodeService) {
    this.aborts = new RunAborts();
    // the loader gave this service its own metadata object: narrowing it here changes only this node's registry entry
    this.metadata.nodeType = codeNodeType(configuredLanguages(kernelOf(this.broker).config.env.SANDBOX_DOCKER_HOST));
  },
};
