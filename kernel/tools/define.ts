import type { Context, Service, ServiceSchema } from 'moleculer';
import type { Identity } from '../gateway/authenticate.ts';
import { TOOL_EXECUTE_PARAMS, TOOL_SERVICE_PREFIX, type ToolCallContext, type ToolDeclaration, type ToolExecuteParams } from '../tools-contract.ts';
import { assertArguments } from './arguments.ts';
import { assertDeclaration } from './declaration.ts';
import { TOOLS_ERR } from './errors.ts';

/** What a tool's `execute` receives besides its (already validated) arguments. */
export interface ToolInvocation {
  /** who is calling and on whose behalf; the tool acts inside `context.entity_id` only */
  context: ToolCallContext;
  /** the broker context: `ctx.meta.user` is the run's user; call other packages through callAction */
  ctx: Context<ToolExecuteParams>;
  /** the tool's service (broker, logger, anything the tool keeps between calls) */
  service: Service;
  tool: ToolDeclaration;
}

export type ToolExecute<A> = (args: A, invocation: ToolInvocation) => unknown;

/**
 * The caller (ctx.meta.user, when there is one) must be the context's entity and user: a
 * context naming another entity would let a caller reach data it cannot see itself.
 */
function checkCaller(ctx: Context, context: ToolCallContext, tool: string): void {
  const user = (ctx.meta as { user?: Identity | null }).user;
  if (!user) return;
  if (user.entity_id !== context.entity_id) throw TOOLS_ERR.CONTEXT(`The call context names entity '${context.entity_id}', not the caller's.`, { tool });
  if (context.user_id && context.user_id !== user.id) throw TOOLS_ERR.CONTEXT(`The call context names user '${context.user_id}', not the caller.`, { tool });
}

/**
 * The service schema of a tool (kernel/tools-contract.ts): named `tool.<name>`, the declaration
 * in `metadata.tool`, and `execute` taking TOOL_EXECUTE_PARAMS. The declaration is checked here,
 * when the package loads (a bad one makes the package fail to load), and every call's
 * `arguments` are checked against `parameters` (422 TOOLS_ERR_INVALID_ARGUMENTS) before
 * `execute` runs, whoever calls.
 */
export function defineTool<A = Record<string, unknown>>(declaration: ToolDeclaration, execute: ToolExecute<A>): ServiceSchema {
  assertDeclaration(declaration);
  const tool = Object.freeze(structuredClone(declaration));
  return {
    name: `${TOOL_SERVICE_PREFIX}${tool.name}`,
    metadata: { tool },
    actions: {
      execute: {
        visibility: 'public',
        params: TOOL_EXECUTE_PARAMS,
        async handler(this: Service, ctx: Context<ToolExecuteParams>) {
          const { arguments: args, context } = ctx.params;
          checkCaller(ctx, context, tool.name);
          assertArguments(tool, args);
          const output = await execute(args as A, { context, ctx, service: this, tool });
          return output === undefined ? null : output;
        },
      },
    },
  } as ServiceSchema;
}
