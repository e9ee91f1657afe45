import { useCallback, useState, type ReactNode } from 'react';
import { Link, NavLink, useNavigate, useParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { MutationConfirm } from '../../ui/MutationConfirm';
import { Empty, QueryView } from '../../ui/states';
import { isLive } from './chat-stream';
import { chatKeys, useConversations, type Conversation } from './chat-queries';
import { ConversationView } from './ConversationView';
import { useChatStream } from './useChatStream';

/** Chat: your conversations on the left, the open one (or a new one) on the right. */
export default function ChatPage(): ReactNode {
  const { conversationId } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const conversations = useConversations();
  const refresh = useCallback(
    (id?: string) => {
      void queryClient.invalidateQueries({ queryKey: chatKeys.conversations });
      if (id) void queryClient.invalidateQueries({ queryKey: chatKeys.messages(id) });
    },
    [queryClient],
  );
  const stream = useChatStream({
    onStarted: (id) => {
      if (id !== conversationId) navigate(`/chat/${id}`, { replace: true });
      refresh(id);
    },
    onSettled: (s) => refresh(s.conversationId),
  });
  const current = conversations.data?.items.find((c) => c.id === conversationId);
  return (
    <section className="chat">
      <div className="page-head">
        <h1>Chat</h1>
        <Link to="/chat" onClick={() => (isLive(stream.state.status) ? undefined : stream.reset())} className="button">New conversation</Link>
      </div>
      <div className="chat-layout">
        <nav aria-label="Conversations" className="chat-list">
          <h2>Conversations</h2>
          <QueryView query={conversations} what="conversations">
            {(data) =>
              data.items.length === 0 ? (
                <Empty>No conversations yet. Write a message to start one.</Empty>
              ) : (
                <ul className="list">
                  {data.items.map((c) => (
                    <ConversationItem key={c.id} conversation={c} onDeleted={() => (c.id === conversationId ? navigate('/chat') : undefined)} />
                  ))}
                </ul>
              )
            }
          </QueryView>
        </nav>
        <ConversationView key={conversationId ?? 'new'} conversationId={conversationId} conversation={current} conversationsPending={conversations.isPending} stream={stream} />
      </div>
    </section>
  );
}

function ConversationItem({ conversation: c, onDeleted }: { conversation: Conversation; onDeleted(): void }): ReactNode {
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/chat/conversations/{conversation_id}', { params: { path: { conversation_id: c.id } } })),
    onSuccess: () => {
      onDeleted();
      void queryClient.invalidateQueries({ queryKey: chatKeys.conversations });
    },
  });
  return (
    <li>
      <NavLink to={`/chat/${c.id}`}>{c.title || 'Untitled'}</NavLink>
      {c.pending && <span className="badge">{c.pending.kind === 'approval' ? 'waits for approval' : 'asks a question'}</span>}
      <button
        type="button"
        className="link"
        aria-label={`Delete conversation ${c.title}`}
        aria-haspopup="dialog"
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
      >
        Delete
      </button>
      <MutationConfirm
        title={`Delete the conversation "${c.title || 'Untitled'}"?`}
        confirmLabel="Delete this conversation"
        mutation={remove}
        open={confirming}
        onClose={() => setConfirming(false)}
      >
        <p>The conversation and its messages are deleted for good.</p>
      </MutationConfirm>
    </li>
  );
}
