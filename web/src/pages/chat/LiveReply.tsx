import type { ReactNode } from 'react';
import { Markdown } from '../../ui/Markdown';
import { isLive, type StreamState, type ToolActivity, type WorkflowStepActivity } from './chat-stream';

/** The reply as it streams: its text, each tool call and each step of a workflow's run, in the order they happened. */
export function LiveReply({ state }: { state: StreamState }): ReactNode {
  const tools = new Map(state.tools.map((t) => [t.id, t]));
  const steps = new Map(state.steps.map((s) => [s.id, s]));
  return (
    <li className="message message-assistant live" aria-busy={isLive(state.status)}>
      <strong className="who">{state.steps.length > 0 ? 'Workflow' : 'Agent'}</strong>
      {state.parts.length === 0 && isLive(state.status) && <p className="muted">Thinking…</p>}
      {state.parts.map((p, i) =>
        p.kind === 'text' ? <Markdown key={i}>{p.text}</Markdown> : p.kind === 'tool' ? <ToolCall key={`t-${p.id}`} tool={tools.get(p.id)!} waiting={state.status === 'approval'} /> : <WorkflowStep key={`s-${p.id}`} step={steps.get(p.id)!} />,
      )}
      {state.status === 'question' && state.question && <p className="question"><strong>Question:</strong> {state.question}</p>}
    </li>
  );
}

const TOOL_TEXT = { running: 'running…', waiting: 'waits for approval', done: 'done', failed: 'failed' } as const;

function ToolCall({ tool, waiting }: { tool: ToolActivity; waiting: boolean }): ReactNode {
  const state = !tool.result ? (waiting ? 'waiting' : 'running') : tool.result.ok ? 'done' : 'failed';
  return (
    <details className={`tool-call tool-${state}`}>
      <summary>
        Tool <code>{tool.name}</code>: <span className={`badge status-${state}`}>{TOOL_TEXT[state]}</span>
      </summary>
      {tool.arguments !== undefined && <pre aria-label={`Arguments of ${tool.name}`}>{JSON.stringify(tool.arguments, null, 2)}</pre>}
      {tool.result?.error !== undefined && <pre aria-label={`Error of ${tool.name}`}>{typeof tool.result.error === 'string' ? tool.result.error : JSON.stringify(tool.result.error, null, 2)}</pre>}
    </details>
  );
}

/** A step of the chat entrypoint's workflow: its id, node type and how it stands. */
function WorkflowStep({ step }: { step: WorkflowStepActivity }): ReactNode {
  return (
    <div className={`workflow-step step-${step.status}`} role="status" aria-label={`Step ${step.id}: ${step.status}`}>
      Step <code>{step.id}</code>
      {step.type && <span className="muted"> ({step.type})</span>}: <span className={`badge status-${step.status}`}>{step.status === 'running' ? 'running…' : step.status}</span>
      {step.error && (
        <span className="problem-note">
          {' '}
          {step.error.message} <code>{step.error.code}</code>
        </span>
      )}
    </div>
  );
}

const STATUS_TEXT: Record<string, string> = {
  connecting: 'Sending…',
  streaming: 'The agent is answering…',
  approval: 'Waiting for your approval.',
  question: 'The agent asked you a question: answer below.',
  complete: 'Reply complete.',
  interrupted: 'Stopped; the partial answer is kept.',
  stopped: 'Stopped; the partial answer is kept.',
  failed: 'The reply failed.',
};

/** The stream's status in words (the live region announces the same changes) and the stop button. */
export function StreamStatusLine({ state, onStop }: { state?: StreamState; onStop(): void }): ReactNode {
  if (!state || state.status === 'idle') return null;
  return (
    <div className="stream-status">
      <span className={`badge status-${state.status}`}>{state.status === 'failed' && !state.messageId ? 'The message was not sent.' : STATUS_TEXT[state.status]}</span>
      {state.error && (
        <span className="problem-note" role="alert">
          {state.error.title} <code>{state.error.code}</code>
        </span>
      )}
      {isLive(state.status) && (
        <button type="button" onClick={onStop}>Stop</button>
      )}
    </div>
  );
}
