import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { ProblemNote } from '../../ui/states';
import type { ChatSend } from './chat-transport';

const MAX_FILES = 5;

/**
 * Writing a message. A new conversation picks its agent (else the workspace's master agent, or
 * a plain assistant answers) and may add the current workspace to the prompt; a question the
 * agent asked is answered by the next message.
 */
export function Composer(props: { conversationId?: string; question?: string; blocked: boolean; busy: boolean; failure?: unknown; onSend(send: ChatSend): Promise<boolean> }): ReactNode {
  const { workspaceId } = useCurrentWorkspace();
  const [message, setMessage] = useState('');
  const [agentId, setAgentId] = useState('');
  const [withContext, setWithContext] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [note, setNote] = useState<string | undefined>();
  const fileInput = useRef<HTMLInputElement>(null);
  const agents = useQuery({
    queryKey: ['agents', 'for-chat', workspaceId ?? 'all'],
    enabled: !props.conversationId,
    queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { status: 'active', limit: 200, ...(workspaceId ? { workspace_id: workspaceId } : {}) } } })),
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!message.trim()) return setNote('Write a message first.');
    if (files.length > MAX_FILES) return setNote(`At most ${MAX_FILES} files per message.`);
    setNote(undefined);
    const started = await props.onSend({
      message,
      conversation_id: props.conversationId,
      agent_id: !props.conversationId && agentId ? agentId : undefined,
      workspace_id: !props.conversationId ? workspaceId : undefined,
      workspace_context: withContext || undefined,
      files,
    });
    // a refused message stays in the box to correct and send again
    if (!started) return;
    setMessage('');
    setFiles([]);
    if (fileInput.current) fileInput.current.value = '';
  };
  const label = props.question ? 'Your answer' : 'Message';
  return (
    <form className="form composer" aria-label="Send a message" onSubmit={(e) => void submit(e)}>
      {props.question && (
        <p className="question" role="note">
          <strong>The agent asks:</strong> {props.question}
        </p>
      )}
      {!props.conversationId && (
        <label>
          Agent
          <select value={agentId} onChange={(e) => setAgentId(e.target.value)}>
            <option value="">Default (the workspace's master agent, else a plain assistant)</option>
            {agents.data?.items.map((a) => (
              <option key={a.id} value={a.id}>{a.name}</option>
            ))}
          </select>
        </label>
      )}
      <label>
        {label}
        <textarea
          value={message}
          rows={3}
          maxLength={100_000}
          disabled={props.blocked}
          onChange={(e) => setMessage(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void submit(e);
          }}
        />
      </label>
      <label>
        Files (up to {MAX_FILES})
        <input ref={fileInput} type="file" multiple disabled={props.blocked} onChange={(e) => setFiles([...(e.target.files ?? [])])} />
      </label>
      {workspaceId && !props.conversationId && (
        <label className="inline">
          <input type="checkbox" checked={withContext} onChange={(e) => setWithContext(e.target.checked)} /> Tell the agent about the current workspace
        </label>
      )}
      {note && <p className="problem-note" role="alert">{note}</p>}
      <ProblemNote error={props.failure} />
      {props.blocked && <p className="muted">Decide the tool approval above before writing again.</p>}
      <div className="actions">
        <button type="submit" disabled={props.busy || props.blocked}>{props.question ? 'Answer' : 'Send'}</button>
      </div>
    </form>
  );
}
