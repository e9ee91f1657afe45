import type { Context, Service } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { identityOf } from '../../kernel/tenancy/identity.ts';
import { SANDBOX_CANCEL_EVENT, SANDBOX_DIALECTS, SANDBOX_LANGUAGES, SANDBOX_MAX_CODE_CHARS, type SandboxRunParams } from '../../kernel/sandbox-contract.ts';
import type { SandboxDriver } from './driver.ts';
import { DockerDriver } from './docker/driver.ts';
import { IsolateDriver } from './isolate/driver.ts';
import { limitsOf } from './limits.ts';
import { SandboxRunner } from './runner.ts';

type SandboxService = Service & { runner: SandboxRunner };

const CODE_RULE = { type: 'string', min: 1, max: SANDBOX_MAX_CODE_CHARS } as const;
const LANGUAGE_RULE = { type: 'enum', values: [...SANDBOX_LANGUAGES], optional: true } as const;

/**
 * The sandbox service (kind `sandbox`, role `control`): every snippet of user code anywhere in
 * the platform runs here, reached through the broker, never in the calling process's isolate.
 * `sandbox.run` is the internal action (kernel/sandbox-contract.ts); `POST /api/v1/workspaces/sandbox`
 * runs a snippet the same way for an owner or admin.
 */
export default {
  name: 'sandbox',
  settings: { rest: '/workspaces' },
  actions: {
    run: {
      visibility: 'public',
      // the run's own limit bounds it (SANDBOX_TIMEOUT_SECONDS, or the caller's timeout_ms)
      timeout: 0,
      params: {
        language: LANGUAGE_RULE,
        code: CODE_RULE,
        input: { type: 'any', optional: true },
        dialect: { type: 'enum', values: [...SANDBOX_DIALECTS], optional: true },
        timeout_ms: { type: 'number', integer: true, positive: true, optional: true },
        execution_id: { type: 'string', min: 1, max: 200, optional: true },
        entity_id: { type: 'string', min: 1, max: 64, optional: true },
      },
      handler(this: SandboxService, ctx: Context<SandboxRunParams>) {
        return this.runner.run(ctx.params);
      },
    },
    status: {
      visibility: 'public',
      handler(this: SandboxService) {
        return this.runner.status();
      },
    },
    execute: {
      rest: 'POST /sandbox',
      // running code is an administrative act (docs/roles.md)
      role: 'admin',
      summary: 'Run a code snippet in the sandbox',
      description:
        'Owners and admins only. JavaScript runs as the body of an async function in a fresh isolated context (`input` bound, `return` the result, `console.log` lines collected); python and shell run in a container where a Docker engine is configured (SANDBOX_DOCKER_HOST). Limits: SANDBOX_TIMEOUT_SECONDS (a smaller `timeout` lowers it), SANDBOX_MEMORY_MB, SANDBOX_MAX_INPUT_BYTES, SANDBOX_MAX_OUTPUT_BYTES. A failed run is 422 with its code (SANDBOX_ERR_SYNTAX, _RUNTIME, _TIME_LIMIT, _MEMORY_LIMIT, _OUTPUT_TOO_LARGE, _OUTPUT_NOT_JSON, _INPUT_TOO_LARGE, _LANGUAGE_UNAVAILABLE).',
      tags: ['workspaces'],
      timeout: 0,
      params: {
        language: LANGUAGE_RULE,
        code: CODE_RULE,
        input: { type: 'any', optional: true },
        timeout: { type: 'number', positive: true, max: 3600, optional: true },
      },
      response: {
        type: 'object',
        properties: {
          language: { type: 'string', enum: [...SANDBOX_LANGUAGES] },
          result: {},
          logs: { type: 'array', items: { type: 'string' } },
          duration_ms: { type: 'number' },
        },
        required: ['language', 'result', 'logs', 'duration_ms'],
      },
      handler(this: SandboxService, ctx: Context<{ language?: SandboxRunParams['language']; code: string; input?: unknown; timeout?: number }>) {
        const who = identityOf(ctx);
        const { language, code, input, timeout } = ctx.params;
        return this.runner.run({ language, code, input, timeout_ms: timeout === undefined ? undefined : Math.ceil(timeout * 1000), entity_id: who.entity_id });
      },
    },
  },
  events: {
    [SANDBOX_CANCEL_EVENT](this: SandboxService, ctx: Context<{ execution_id?: unknown }>) {
      if (typeof ctx.params?.execution_id === 'string' && ctx.params.execution_id) this.runner.cancel(ctx.params.execution_id);
    },
  },
  created(this: SandboxService) {
    const env = kernelOf(this.broker).config.env;
    const limits = limitsOf(env);
    const drivers: SandboxDriver[] = [new IsolateDriver(limits.warmIsolates, limits.memoryMb)];
    if (env.SANDBOX_DOCKER_HOST) {
      drivers.push(new DockerDriver({ host: env.SANDBOX_DOCKER_HOST, images: { python: env.SANDBOX_DOCKER_IMAGE_PYTHON, shell: env.SANDBOX_DOCKER_IMAGE_SHELL }, pidsLimit: env.SANDBOX_DOCKER_PIDS_LIMIT, maxRunMs: limits.timeoutMs }));
    }
    this.runner = new SandboxRunner(limits, drivers);
  },
  async stopped(this: SandboxService) {
    await this.runner.close();
  },
};
