import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { followRunEvents, type RunEvent } from '../src/pages/runs/run-stream';
import { useRunEvents } from '../src/pages/runs/run-events';
import { LoginDialog } from '../src/auth/LoginDialog';
import { sessionState } from '../src/auth/session-state';
import { ApiError } from '../src/api/problem';

afterEach(() => vi.unstubAllGlobals());

const enc = new TextEncoder();
const frame = (id: number, event: string, data: unknown): string => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** an SSE body that sends `frames`, then either ends or breaks off like a cut connection */
function sse(frames: string[], end: 'close' | 'cut'): Response {
  const queue = [...frames];
  // pulled one frame at a time: an error raised with frames still queued would drop them
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = queue.shift();
      if (next !== undefined) c.enqueue(enc.encode(next));
      else if (end === 'close') c.close();
      else c.error(new TypeError('network error'));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

interface Seen {
  url: string;
  lastEventId: string | null;
}

/** stubs fetch with one answer per request, in order; records each request's URL and Last-Event-ID */
function answers(list: Array<() => Response | Promise<Response>>): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal('fetch', async (input: Request | string) => {
    const req = typeof input === 'string' ? new Request(new URL(input, 'http://app.test')) : input;
    seen.push({ url: new URL(req.url).pathname, lastEventId: req.headers.get('last-event-id') });
    const next = list[seen.length - 1];
    if (!next) throw new Error(`unexpected request ${seen.length}: ${req.url}`);
    return next();
  });
  return seen;
}

const problem = (status: number, title: string): Response => new Response(JSON.stringify({ title, status }), { status, headers: { 'content-type': 'application/problem+json' } });

describe('a run\'s live events', () => {
  it('reconnects after a cut connection with Last-Event-ID of the last event, and stops after run.finished', async () => {
    const seen = answers([
      () => sse([frame(1, 'run.started', {}), frame(2, 'step.started', { step_id: 'a' })], 'cut'),
      () => Promise.reject(new TypeError('Failed to fetch')),
      () => sse([frame(3, 'step.finished', { step_id: 'a', status: 'completed' }), frame(4, 'run.finished', { status: 'completed' })], 'close'),
    ]);
    const events: RunEvent[] = [];
    const connected: boolean[] = [];
    await followRunEvents('run-1', { signal: new AbortController().signal, onEvent: (e) => events.push(e), onConnected: (c) => connected.push(c), retryDelay: () => 0 });
    expect(events.map((e) => [e.id, e.type])).toEqual([['1', 'run.started'], ['2', 'step.started'], ['3', 'step.finished'], ['4', 'run.finished']]);
    expect(events[2]!.data).toEqual({ step_id: 'a', status: 'completed' });
    expect(seen).toEqual([
      { url: '/api/v1/workflows/runs/run-1/events', lastEventId: null },
      { url: '/api/v1/workflows/runs/run-1/events', lastEventId: '2' },
      { url: '/api/v1/workflows/runs/run-1/events', lastEventId: '2' },
    ]);
    expect(connected).toEqual([true, false, false, true, false]);
  });

  it('a stream the server closes before run.finished is opened again from its last id', async () => {
    const seen = answers([
      () => sse([frame(7, 'run.paused', {})], 'close'),
      () => sse([frame(8, 'run.resumed', {}), frame(9, 'run.finished', { status: 'completed' })], 'close'),
    ]);
    const events: RunEvent[] = [];
    await followRunEvents('r', { signal: new AbortController().signal, onEvent: (e) => events.push(e), retryDelay: () => 0 });
    expect(seen.map((s) => s.lastEventId)).toEqual([null, '7']);
    expect(events.map((e) => e.type)).toEqual(['run.paused', 'run.resumed', 'run.finished']);
  });

  it('a refusal other than 401 ends the stream with its problem, without retrying', async () => {
    const seen = answers([() => problem(403, 'Forbidden')]);
    let refused: ApiError | undefined;
    await followRunEvents('r', { signal: new AbortController().signal, onEvent: () => undefined, onRefused: (e) => (refused = e), retryDelay: () => 0 });
    expect(seen).toHaveLength(1);
    expect(refused?.status).toBe(403);
    expect(refused?.problem.title).toBe('Forbidden');
  });

  it('aborting stops a stream that is waiting to reconnect', async () => {
    const seen = answers([() => sse([], 'cut'), () => sse([], 'cut')]);
    const controller = new AbortController();
    const done = followRunEvents('r', { signal: controller.signal, onEvent: () => undefined, onConnected: (c) => !c && controller.abort(), retryDelay: () => 60_000 });
    await done;
    expect(seen).toHaveLength(1);
  });
});

function Live({ runId }: { runId: string }): ReactNode {
  const { connected } = useRunEvents(runId, onEvent, true);
  return <p>{connected ? 'live' : 'connecting'}</p>;
}
const received: string[] = [];
const onEvent = (e: RunEvent): void => void received.push(e.type);

describe('a 401 on a run\'s stream', () => {
  it('opens the login form over the page; once signed in the same stream is opened and read', async () => {
    let signedIn = false;
    const seen: string[] = [];
    vi.stubGlobal('fetch', async (input: Request | string, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : new URL(input.url).pathname;
      seen.push(`${typeof input === 'string' ? init?.method ?? 'GET' : input.method} ${url}`);
      if (url === '/session') {
        const body = JSON.parse(String(init?.body)) as { password: string };
        if (body.password !== 'right password') return problem(401, 'Invalid email or password');
        signedIn = true;
        return new Response(null, { status: 204 });
      }
      if (!signedIn) return problem(401, 'Authentication required');
      return sse([frame(1, 'run.started', {}), frame(2, 'run.finished', { status: 'completed' })], 'close');
    });
    render(<><Live runId="run-9" /><LoginDialog /></>);
    const dialog = await screen.findByRole('dialog', { name: 'Sign in' });
    expect(received).toEqual([]);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'owner@example.test');
    await user.type(screen.getByLabelText('Password'), 'right password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(received).toEqual(['run.started', 'run.finished']));
    expect(dialog).not.toBeInTheDocument();
    expect(sessionState.isRequired()).toBe(false);
    expect(seen).toEqual(['GET /api/v1/workflows/runs/run-9/events', 'POST /session', 'GET /api/v1/workflows/runs/run-9/events']);
  });
});
