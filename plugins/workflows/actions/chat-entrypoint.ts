import type { Context } from 'moleculer';
import type { ChatEntrypoint } from '../../../kernel/nodes/durable.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { newRunOf } from '../run-launch.ts';
import type { WorkflowsAction } from '../service.ts';


/**
 * `workflows.chatEntrypoint` (internal): the enabled binding that is the chat entrypoint of the
 * workspace, in the caller's entity, or null (the chat then answers with an agent).
 */
export const chatEntrypoint: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, workspace_id: { type: 'string', min: 1, max: 64 } },
  async handler(ctx: Context<{ workspace_id: string }>): Promise<ChatEntrypoint | null> {
    const binding = await this.bindings.chatEntrypoint(identityOf(ctx).entity_id, ctx.params.workspace_id.toLowerCase());
    return binding ? { binding_id: binding.id, workflow_id: binding.workflow_id, workflow_name: binding.definition.name } : null;
  },
};

/**
 * `workflows.startChatRun` (internal): a chat message starts a run of its workspace's chat
 * entrypoint, owned by the sender (who therefore decides its approvals). `{{trigger}}` is what
 * the chat package passes (message, conversation, history, files). 409 when the binding stopped
 * being the enabled entrypoint meanwhile.
 */
export const startChatRun: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    binding_id: { type: 'string', min: 1, max: 64 },
    trigger: { type: 'object' },
    /** a stream will follow the run: its live events are broadcast from the start */
    watch: { type: 'boolean', optional: true },
  },
  async handler(ctx: Context<{ binding_id: string; trigger: Record<string, unknown>; watch?: boolean }>) {
    const who = identityOf(ctx);
    const binding = await this.bindings.get(who.entity_id, ctx.params.binding_id);
    const current = await this.bindings.chatEntrypoint(who.entity_id, binding.workspace_id);
    if (current?.id !== binding.id) throw WORKFLOWS_ERR.BINDING_DISABLED(`Binding '${binding.id}' is no longer the chat entrypoint of its workspace; send the message again.`);
    const run = newRunOf(current.definition, { binding: current, owner_id: who.id, trigger_type: 'chat', trigger: ctx.params.trigger });
    if (ctx.params.watch) this.live.watch(run.id);
    const row = await this.engine.enqueueRun(run);
    return { run_id: row.id, status: row.status, seq: row.seq };
  },
};
