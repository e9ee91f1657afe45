import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApprovalPanel, approvalBody } from '../src/pages/chat/ApprovalPanel';
import { useChatStream, type ChatStream } from '../src/pages/chat/useChatStream';
import { LiveReply } from '../src/pages/chat/LiveReply';
import { initialStream } from '../src/pages/chat/chat-stream';
import { AnnouncerProvider } from '../src/ui/announcer';

afterEach(() => vi.unstubAllGlobals());

function wrap(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <AnnouncerProvider>{children}</AnnouncerProvider>
    </QueryClientProvider>,
  );
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', 'x-request-id': 'req-9' } });

/** An SSE answer whose frames arrive one by one, optionally cut before the end. */
function sse(frames: string[]): Response {
  const enc = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const f of frames) c.enqueue(enc.encode(f));
        c.close();
      },
    }),
    { status: 200, headers: { 'content-type': 'text/event-stream' } },
  );
}
const f = (event: string, data: unknown, id?: number) => `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe('deciding a tool approval in the chat', () => {
  it('leaves a blank comment out', () => {
    expect(approvalBody('approve', '  ')).toEqual({ decision: 'approve' });
    expect(approvalBody('reject', ' not now ')).toEqual({ decision: 'reject', comment: 'not now' });
  });

  it('approve posts the decision with the comment and hands back where to follow the run', async () => {
    const sent: { url: string; method: string; body: string }[] = [];
    vi.stubGlobal('fetch', async (req: Request) => {
      sent.push({ url: new URL(req.url).pathname, method: req.method, body: await req.text() });
      return json(200, { conversation_id: 'c-1', run_id: 'r-1', decision: 'approve', last_event_id: 12, message: {} });
    });
    const onDecided = vi.fn();
    wrap(<ApprovalPanel conversationId="c-1" approval={{ run_id: 'r-1', step_id: 'agent', tool: 'tasks', reason: 'The policy asks a person.', source: 'tool' }} onDecided={onDecided} />);
    expect(screen.getByRole('form', { name: 'Tool approval' })).toHaveTextContent('tasks');
    await userEvent.type(screen.getByLabelText('Comment (optional)'), 'fine');
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(onDecided).toHaveBeenCalledWith(expect.objectContaining({ run_id: 'r-1', last_event_id: 12 })));
    expect(sent).toEqual([{ url: '/api/v1/chat/conversations/c-1/approval', method: 'POST', body: '{"decision":"approve","comment":"fine"}' }]);
  });

  it("a workflow's approval wait names its step, not a tool", async () => {
    const sent: string[] = [];
    vi.stubGlobal('fetch', async (req: Request) => {
      sent.push(await req.text());
      return json(200, { conversation_id: 'c-1', run_id: 'r-2', decision: 'approve', last_event_id: 7, message: {} });
    });
    const onDecided = vi.fn();
    wrap(<ApprovalPanel conversationId="c-1" approval={{ run_id: 'r-2', step_id: 'sign_off', tool: null, reason: 'Check the refund.', source: 'workflow' }} onDecided={onDecided} />);
    const form = screen.getByRole('form', { name: 'Workflow approval' });
    expect(form).toHaveTextContent('The workflow waits for your approval at step sign_off. Check the refund.');
    expect(form).not.toHaveTextContent(/tool/i);
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(onDecided).toHaveBeenCalledWith(expect.objectContaining({ run_id: 'r-2' })));
    expect(sent).toEqual(['{"decision":"approve"}']);
  });

  it('a refusal (the approval was already decided) is shown with its code, and nothing follows', async () => {
    vi.stubGlobal('fetch', async () => json(409, { title: 'Nothing in this conversation waits for an approval', status: 409, code: 'CHAT_ERR_NO_PENDING_APPROVAL', detail: 'Decided already.' }));
    const onDecided = vi.fn();
    wrap(<ApprovalPanel conversationId="c-1" approval={{ run_id: 'r-1', step_id: 'agent', tool: 'tasks', reason: null, source: 'tool' }} onDecided={onDecided} />);
    await userEvent.click(screen.getByRole('button', { name: 'Reject' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Nothing in this conversation waits for an approval');
    expect(alert).toHaveTextContent('CHAT_ERR_NO_PENDING_APPROVAL');
    expect(onDecided).not.toHaveBeenCalled();
  });
});

let stream: ChatStream;
function Harness(): ReactNode {
  stream = useChatStream({});
  return <p data-testid="status">{stream.state.status}</p>;
}

describe('the chat stream hook', () => {
  it('sends the message as multipart, announces the approval wait', async () => {
    const seen: { path: string; type: string | null; message?: FormDataEntryValue | null }[] = [];
    vi.stubGlobal('fetch', async (req: Request) => {
      const form = await req.formData();
      seen.push({ path: new URL(req.url).pathname, type: req.headers.get('content-type'), message: form.get('message') });
      return sse([f('message.start', { conversation_id: 'c-1', message_id: 'm-1', run_id: 'r-1' }), f('tool.call', { id: 't', name: 'tasks', arguments: {} }, 3), f('approval.required', { run_id: 'r-1', step_id: 'agent', tool: 'tasks', reason: null }, 4), f('message.end', { message_id: 'm-1', text: '', status: 'complete' })]);
    });
    wrap(<Harness />);
    let started: Promise<boolean> | undefined;
    act(() => {
      started = stream.send({ message: 'Order toner' });
    });
    await waitFor(() => expect(screen.getByTestId('status')).toHaveTextContent('approval'));
    await expect(started).resolves.toBe(true);
    expect(seen[0]).toMatchObject({ path: '/api/v1/chat/stream', message: 'Order toner' });
    expect(seen[0]!.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(screen.getByTestId('announcer')).toHaveTextContent('The agent waits for your approval to use tasks');
    expect(stream.state.approval?.run_id).toBe('r-1');
  });

  it('a connection cut before message.end resumes from the last durable frame', async () => {
    const paths: string[] = [];
    vi.stubGlobal('fetch', async (req: Request) => {
      const url = new URL(req.url);
      paths.push(url.pathname + url.search);
      if (url.pathname === '/api/v1/chat/stream') return sse([f('message.start', { conversation_id: 'c-1', message_id: 'm-1', run_id: 'r-1' }), f('tool.call', { id: 'a', name: 'datetime', arguments: {} }, 4), f('text.delta', { text: 'It' })]);
      return sse([f('message.start', { conversation_id: 'c-1', message_id: 'm-1', run_id: 'r-1' }), f('tool.result', { id: 'a', name: 'datetime', ok: true }, 5), f('text.delta', { text: 'It is noon.' }), f('message.end', { message_id: 'm-1', text: 'It is noon.', status: 'complete' })]);
    });
    wrap(<Harness />);
    act(() => {
      void stream.send({ message: 'Time?' });
    });
    await waitFor(() => expect(screen.getByTestId('status')).toHaveTextContent('complete'), { timeout: 5_000 });
    expect(paths).toEqual(['/api/v1/chat/stream', '/api/v1/chat/runs/r-1/events?last_event_id=4']);
    expect(stream.state.parts).toEqual([{ kind: 'tool', id: 'a' }, { kind: 'text', text: 'It is noon.' }]);
    expect(stream.state.tools[0]!.result).toEqual({ ok: true });
  });

  it('a refused message (409 busy) is a failure carrying the problem, not a reconnect loop; the composer is told it did not start', async () => {
    let calls = 0;
    vi.stubGlobal('fetch', async () => {
      calls++;
      return json(409, { title: 'The agent is still answering in this conversation', status: 409, code: 'CHAT_ERR_BUSY' });
    });
    wrap(<Harness />);
    let started: Promise<boolean> | undefined;
    act(() => {
      started = stream.send({ message: 'again', conversation_id: 'c-1' });
    });
    await waitFor(() => expect(screen.getByTestId('status')).toHaveTextContent('failed'));
    await expect(started).resolves.toBe(false);
    expect(screen.getByTestId('announcer')).toHaveTextContent('The message was not sent');
    expect(calls).toBe(1);
    expect((stream.state.failure as { problem: { code: string } }).problem.code).toBe('CHAT_ERR_BUSY');
  });

  it('stop aborts the request', async () => {
    let signal: AbortSignal | undefined;
    vi.stubGlobal('fetch', (req: Request) => {
      signal = req.signal;
      return new Promise<Response>((_, reject) => req.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    });
    wrap(<Harness />);
    act(() => {
      void stream.send({ message: 'long one' });
    });
    await waitFor(() => expect(signal).toBeDefined());
    act(() => stream.stop());
    expect(signal!.aborted).toBe(true);
    expect(screen.getByTestId('status')).toHaveTextContent('stopped');
  });
});

describe("a chat entrypoint workflow's live reply", () => {
  it('shows each step with how it stands, in order with the agent step\'s text', () => {
    wrap(
      <ul>
        <LiveReply
          state={{
            ...initialStream,
            status: 'streaming',
            parts: [{ kind: 'step', id: 'start' }, { kind: 'step', id: 'answer' }, { kind: 'text', text: 'Looking.' }, { kind: 'step', id: 'post' }],
            steps: [
              { id: 'start', type: 'trigger', status: 'completed' },
              { id: 'answer', type: 'agent', status: 'running' },
              { id: 'post', type: 'http', status: 'failed', error: { code: 'HTTP_502', message: 'bad gateway' } },
            ],
          }}
        />
      </ul>,
    );
    expect(screen.getByText('Workflow')).toBeInTheDocument();
    const steps = screen.getAllByRole('status', { name: /^Step / }).map((el) => el.getAttribute('aria-label'));
    expect(steps).toEqual(['Step start: completed', 'Step answer: running', 'Step post: failed']);
    expect(screen.getByRole('status', { name: 'Step post: failed' })).toHaveTextContent('bad gateway HTTP_502');
    expect(screen.getByText('Looking.')).toBeInTheDocument();
  });
});
