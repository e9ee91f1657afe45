import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Markdown } from '../../ui/Markdown';
import { ErrorState, Loading, NotFound } from '../../ui/states';
import { ApiError } from '../../api/problem';
import { approvalFromPending, isLive } from './chat-stream';
import { useMessages, type ChatMessage, type Conversation } from './chat-queries';
import { ApprovalPanel } from './ApprovalPanel';
import { Composer } from './Composer';
import { LiveReply, StreamStatusLine } from './LiveReply';
import type { ChatStream } from './useChatStream';

/** One conversation: its stored messages, the reply streaming now, a pending approval or question, the composer. */
export function ConversationView(props: { conversationId?: string; conversation?: Conversation; conversationsPending: boolean; stream: ChatStream }): ReactNode {
  const { conversationId, conversation, stream } = props;
  const messages = useMessages(conversationId);
  const live = stream.state;
  const liveHere = live.status !== 'idle' && live.conversationId === conversationId;
  if (conversationId && messages.isError) {
    if (messages.error instanceof ApiError && messages.error.status === 404) return <div className="chat-main"><NotFound what="conversation" /></div>;
    return <div className="chat-main"><ErrorState error={messages.error} onRetry={() => void messages.refetch()} /></div>;
  }
  const items = messages.data?.items ?? [];
  const liveShownInList = liveHere && items.some((m) => m.id === live.messageId);
  // the live stream knows best while it runs; the stored pending is what a reload shows
  const approval = liveHere ? (live.status === 'approval' ? live.approval : undefined) : approvalFromPending(conversation?.pending);
  const question = liveHere ? (live.status === 'question' ? live.question : undefined) : conversation?.pending?.kind === 'question' ? (conversation.pending.text ?? '') : undefined;
  return (
    <div className="chat-main">
      <h2>{conversation?.title || (conversationId ? 'Conversation' : 'New conversation')}</h2>
      {conversationId && messages.isPending ? (
        <Loading label="Loading messages" />
      ) : (
        <ol className="messages" aria-label="Messages">
          {items.length === 0 && !liveHere && <li className="muted">No messages yet: write the first one below.</li>}
          {items.map((m) => (m.id === live.messageId && liveHere ? <LiveReply key={m.id} state={live} /> : <StoredMessage key={m.id} message={m} />))}
          {liveHere && !liveShownInList && live.messageId && <LiveReply state={live} />}
        </ol>
      )}
      <StreamStatusLine state={liveHere ? live : undefined} onStop={stream.stop} />
      {approval && conversationId && <ApprovalPanel conversationId={conversationId} approval={approval} onDecided={(d) => stream.follow(d.run_id, d.last_event_id, conversationId)} />}
      {conversationId && props.conversationsPending ? null : (
        <Composer
          conversationId={conversationId}
          question={question}
          blocked={Boolean(approval)}
          busy={liveHere && isLive(live.status)}
          failure={live.conversationId === conversationId ? live.failure : undefined}
          onSend={stream.send}
        />
      )}
    </div>
  );
}

function StoredMessage({ message: m }: { message: ChatMessage }): ReactNode {
  return (
    <li className={`message message-${m.role}`}>
      <strong className="who">{m.role === 'user' ? 'You' : 'Agent'}</strong>
      {m.status !== 'complete' && <span className={`badge status-${m.status}`}>{m.status}</span>}
      {m.content ? <Markdown>{m.content}</Markdown> : m.status === 'streaming' ? <p className="muted">Answering…</p> : null}
      {m.files.length > 0 && (
        <ul className="files" aria-label="Attached files">
          {m.files.map((f) => (
            <li key={f.filename}>{f.filename} ({f.media_type}, {f.size} bytes)</li>
          ))}
        </ul>
      )}
      {m.error && <p className="problem-note" role="note">{m.error.message} {m.error.code && <code>{m.error.code}</code>}</p>}
      {m.run_id && m.role === 'assistant' && <Link className="muted" to={`/runs/${m.run_id}`}>Its run: tool calls and receipts</Link>}
    </li>
  );
}
