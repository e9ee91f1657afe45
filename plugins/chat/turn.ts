import type { Context } from 'moleculer';
import { AGENTS_MASTER_ACTION, AGENTS_RESOLVE_ACTION, type AgentView } from '../../kernel/agents-contract.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { WORKFLOWS_CHAT_ENTRYPOINT_ACTION, WORKFLOWS_DECIDE_ACTION, WORKFLOWS_START_INTERNAL_RUN_ACTION, type ChatEntrypoint } from '../../kernel/nodes/durable.ts';
import { entrypointTurn } from './entrypoint.ts';
import { storeUserMessage, titleOf, type Turn, type TurnRequest } from './user-message.ts';
import { CHAT_ERR } from './errors.ts';
import { addMessage } from './message-writes.ts';
import { agentPrompt, historyOf } from './prompt.ts';
import { asCaller, awaitRun, runStopped, settleFromRun } from './runs.ts';
import {
  findConversation, insertMessage, recentMessages, setPending, streamingMessage, takePending,
  type Caller, type ConversationRow,
} from './store.ts';
import type { ChatService } from './service.ts';

/** Longest answer to an agent's question (what workflows.decide takes). */
const ANSWER_MAX = 20_000;

const invalid = (field: string, message: string, type: string) => ERRORS.VALIDATION_FAILED(message, [{ field, message, type }]);

/** Settles a conversation's streaming message whose run has stopped (a reply nobody settled); 409 while it still runs. */
async function assertIdle(svc: ChatService, who: Caller, conversation: ConversationRow): Promise<void> {
  const streaming = await streamingMessage(svc.db, conversation.id);
  if (!streaming?.run_id) return;
  const run = await awaitRun(svc.broker, who, streaming.run_id, 0);
  if (runStopped(run)) await settleFromRun(svc.broker, svc.sql, who, streaming);
  if ((await streamingMessage(svc.db, conversation.id))?.id === streaming.id) {
    throw CHAT_ERR.BUSY('The agent is still answering the previous message; wait for it (or follow its stream) before sending another.', { run_id: streaming.run_id });
  }
}

/** Whether the run is still parked (a pending request of the conversation may still be decided). */
async function stillPaused(svc: ChatService, who: Caller, runId: string): Promise<boolean> {
  try {
    return (await awaitRun(svc.broker, who, runId, 0)).status === 'paused';
  } catch (err) {
    // a run that is gone cannot be decided; any other failure leaves the request as it is
    return (err as { code?: number }).code !== 404;
  }
}

/** The agent that answers: the one named, else the conversation's, else the workspace's master; none is a plain assistant. */
async function chooseAgent(ctx: Context, who: Caller, req: TurnRequest, conversation: ConversationRow | undefined, workspaceId: string | null): Promise<AgentView | undefined> {
  const opts = asCaller(who);
  if (req.agent_id) {
    const agent = await ctx.call<AgentView, { agent_id: string }>(AGENTS_RESOLVE_ACTION, { agent_id: req.agent_id }, opts);
    if (agent.status !== 'active') throw invalid('agent_id', `The agent '${agent.name}' is disabled.`, 'agentDisabled');
    if (agent.workspace_id && workspaceId && agent.workspace_id !== workspaceId) throw invalid('agent_id', `The agent '${agent.name}' belongs to another workspace.`, 'agentWorkspace');
    return agent;
  }
  if (conversation?.agent_id) {
    const agent = await ctx.call<AgentView, { agent_id: string }>(AGENTS_RESOLVE_ACTION, { agent_id: conversation.agent_id }, opts).catch(() => undefined);
    if (agent?.status === 'active') return agent;
  }
  if (workspaceId) return (await ctx.call<AgentView | null, { workspace_id: string }>(AGENTS_MASTER_ACTION, { workspace_id: workspaceId }, opts)) ?? undefined;
  return undefined;
}

/** The next message of a conversation whose run waits for an answer: the answer resumes that run. */
async function answerQuestion(svc: ChatService, ctx: Context, who: Caller, conversation: ConversationRow, req: TurnRequest): Promise<Turn> {
  const pending = conversation.pending!;
  if (req.message.length > ANSWER_MAX) throw invalid('message', `An answer to the agent's question may be at most ${ANSWER_MAX} characters.`, 'stringMax');
  if (req.files.length) throw invalid('files', "Files cannot go with an answer to the agent's question; answer first, then send them.", 'filesNotAccepted');
  const { seq } = await awaitRun(svc.broker, who, pending.run_id, 0);
  const { user, assistant } = await svc.db.transaction(async (transaction) => {
    if (!(await takePending(svc.db, conversation.id, pending.run_id, pending.step_id, transaction))) throw CHAT_ERR.BUSY('The question was answered meanwhile.');
    return {
      user: await insertMessage(svc.db, { entity_id: who.entity_id, conversation_id: conversation.id, user_id: who.id, role: 'user', content: req.message, run_id: pending.run_id, start_seq: null, status: 'complete' }, transaction),
      assistant: await insertMessage(svc.db, { entity_id: who.entity_id, conversation_id: conversation.id, user_id: null, role: 'assistant', content: '', run_id: pending.run_id, workflow_id: pending.workflow_id ?? null, start_seq: seq, status: 'streaming' }, transaction),
    };
  });
  // after the commit, never inside it: the run's side writes on another connection, and the
  // embedded database serves one transaction at a time (a call inside would wait for itself)
  try {
    await ctx.call(WORKFLOWS_DECIDE_ACTION, { run_id: pending.run_id, step_id: pending.step_id, decision: 'answer', answer: req.message }, asCaller(who));
  } catch (err) {
    await setPending(svc.db, conversation.id, pending);
    await svc.db.query("UPDATE chat_messages SET status = 'failed', updated_at = now() WHERE id = $1", { bind: [assistant.id] });
    throw err;
  }
  return { conversation, user, assistant, run_id: pending.run_id, after: seq };
}

/**
 * Takes a message: into the given (or a new) conversation, answering the run's question when
 * one waits, else starting a durable agent run `trigger -> agent` with the conversation's
 * history. 404 for a conversation, agent or workspace the caller may not see; 409 while the
 * previous answer still runs or an approval waits.
 */
export async function takeTurn(svc: ChatService, ctx: Context, who: Caller, req: TurnRequest, thread?: ConversationRow): Promise<Turn> {
  let conversation = thread ?? (req.conversation_id ? await findConversation(svc.db, who, req.conversation_id) : undefined);
  if (conversation?.workspace_id && req.workspace_id && conversation.workspace_id !== req.workspace_id.toLowerCase()) {
    throw invalid('workspace_id', `This conversation belongs to workspace ${conversation.workspace_id}.`, 'workspaceMismatch');
  }
  if (conversation) {
    await assertIdle(svc, who, conversation);
    conversation = await findConversation(svc.db, who, conversation.id);
    if (conversation.pending && !(await stillPaused(svc, who, conversation.pending.run_id))) {
      // decided elsewhere (the run's own resume route, the task's approval): nothing waits here any more
      await setPending(svc.db, conversation.id, null);
      conversation = { ...conversation, pending: null };
    }
    if (conversation.pending?.kind === 'approval') {
      const what = conversation.pending.source === 'workflow' ? 'The workflow waits for an approval' : 'A tool call waits for your decision';
      throw CHAT_ERR.APPROVAL_PENDING(`${what}: POST /api/v1/chat/conversations/{conversation_id}/approval first.`, { run_id: conversation.pending.run_id });
    }
    if (conversation.pending?.kind === 'question') return answerQuestion(svc, ctx, who, conversation, req);
  }
  const opts = asCaller(who);
  const workspaceId = req.workspace_id?.toLowerCase() ?? conversation?.workspace_id ?? null;
  if (req.workspace_context && !workspaceId) throw invalid('workspace_id', 'workspace_context needs a workspace: give workspace_id.', 'required');
  const workspace = workspaceId ? await ctx.call<Record<string, unknown>, { workspace_id: string }>('workspaces.resolve', { workspace_id: workspaceId }, opts) : undefined;
  const history = conversation ? historyOf(await recentMessages(svc.db, conversation.id, svc.env.CHAT_HISTORY_MESSAGES)) : [];
  // the workspace's chat entrypoint answers, unless an agent was chosen for this message or conversation
  if (workspaceId && !req.agent_id && !conversation?.agent_id) {
    const entrypoint = await ctx.call<ChatEntrypoint | null, { workspace_id: string }>(WORKFLOWS_CHAT_ENTRYPOINT_ACTION, { workspace_id: workspaceId }, opts);
    if (entrypoint) return entrypointTurn(svc, ctx, who, req, { conversation, workspaceId, entrypoint, history });
  }
  const agent = await chooseAgent(ctx, who, req, conversation, workspaceId);
  const runWorkspace = workspaceId ?? agent?.workspace_id ?? null;
  const operatingModel = workspace && req.workspace_context ? await ctx.call<Record<string, unknown>, { workspace_id: string }>('workspaces.getOperatingModel', { workspace_id: workspaceId! }, opts) : undefined;
  const system = agentPrompt({ agent, workspace: req.workspace_context ? workspace : undefined, operatingModel });

  const { conv, user } = await storeUserMessage(svc, who, req, conversation, workspaceId, agent?.id ?? null);
  {
    // the run starts after the commit, never inside it (see answerQuestion)
    const trigger = { reason: 'chat', conversation_id: conv.id, agent_id: agent?.id ?? null, prompt: req.message, history, system, files: req.files.map(({ object_key, media_type, filename }) => ({ object_key, media_type, filename })) };
    // user text reaches the node through whole-string templates of the trigger, so braces in a message are never read as templates
    const config: Record<string, unknown> = { prompt: '{{trigger.prompt}}', conversation_id: conv.id, history: '{{trigger.history}}' };
    if (system) config.system = '{{trigger.system}}';
    if (req.files.length) config.files = '{{trigger.files}}';
    if (agent) config.agent_id = agent.id;
    else config.tools = [];
    const started = await ctx.call<{ run_id: string; seq: number }, unknown>(
      WORKFLOWS_START_INTERNAL_RUN_ACTION,
      {
        kind: 'agent',
        subject_id: agent?.id ?? conv.id,
        subject_version: agent?.version ?? 1,
        name: `${agent?.name ?? 'Chat'}: ${titleOf(req.message)}`.slice(0, 200),
        workspace_id: runWorkspace,
        steps: [
          { id: 'start', type: 'trigger', next: ['agent'] },
          { id: 'agent', type: 'agent', config },
        ],
        trigger,
        // the reply is streamed: its first deltas must not go out before the stream follows the run
        watch: true,
      },
      opts,
    );
    const assistant = await addMessage(svc.sql, { entity_id: who.entity_id, conversation_id: conv.id, user_id: null, role: 'assistant', content: '', run_id: started.run_id, start_seq: started.seq ?? 0, status: 'streaming' });
    return { conversation: conv, user, assistant, run_id: started.run_id, after: started.seq ?? 0 };
  }
}
