import type { AgentView } from '../../kernel/agents-contract.ts';
import type { MessageRow } from './store.ts';

/** Earlier turns given to the agent, in characters at most (the oldest are dropped first). */
export const HISTORY_MAX_CHARS = 100_000;

const PLAIN_ASSISTANT = 'You are a helpful assistant. Answer clearly and briefly.';

/**
 * The system prompt of a chat run: a plain assistant's when no agent answers (the agent's own
 * instructions come from the agent node), plus the workspace's name, description and operating
 * model when the message asked for workspace context.
 */
export function agentPrompt(p: { agent?: AgentView; workspace?: Record<string, unknown>; operatingModel?: Record<string, unknown> }): string | undefined {
  const parts: string[] = [];
  if (!p.agent) parts.push(PLAIN_ASSISTANT);
  if (p.workspace) {
    const lines = ['Workspace context (the user is working in this workspace):', `Name: ${String(p.workspace.name ?? '')}`];
    if (p.workspace.description) lines.push(`Description: ${String(p.workspace.description)}`);
    if (p.operatingModel) {
      const { version: _version, workspace_id: _id, ...model } = p.operatingModel;
      lines.push(`Operating model: ${JSON.stringify(model)}`);
    }
    parts.push(lines.join('\n'));
  }
  return parts.length ? parts.join('\n\n') : undefined;
}

/** The conversation so far as agent history: settled messages with text, the newest kept within HISTORY_MAX_CHARS. */
export function historyOf(messages: MessageRow[]): { role: 'user' | 'assistant'; content: string }[] {
  const out: { role: 'user' | 'assistant'; content: string }[] = [];
  let chars = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!m.content) continue;
    if (chars + m.content.length > HISTORY_MAX_CHARS) break;
    chars += m.content.length;
    // providers want turns to alternate: a reply that failed empty leaves two user turns, joined here
    if (out[0]?.role === m.role) out[0] = { role: m.role, content: `${m.content}\n\n${out[0].content}` };
    else out.unshift({ role: m.role, content: m.content });
  }
  return out;
}
