import { afterEach, describe, expect, it, vi } from 'vitest';
import { authFetch } from '../src/auth/auth-fetch';
import { sessionState } from '../src/auth/session-state';

afterEach(() => vi.unstubAllGlobals());

describe('a 401 anywhere', () => {
  it('opens the login form, waits for the sign-in, then repeats the same request with its body', async () => {
    const seen: { body: string; method: string }[] = [];
    let signedIn = false;
    vi.stubGlobal('fetch', async (req: Request) => {
      seen.push({ body: await req.text(), method: req.method });
      return new Response(signedIn ? '{"ok":true}' : '{"title":"Authentication required","status":401}', { status: signedIn ? 200 : 401 });
    });
    const pending = authFetch(new Request('http://app.test/api/v1/workflows/1', { method: 'PUT', body: '{"steps":[1,2,3]}' }));
    await vi.waitFor(() => expect(sessionState.isRequired()).toBe(true));
    signedIn = true;
    sessionState.satisfied();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(sessionState.isRequired()).toBe(false);
    expect(seen).toEqual([
      { method: 'PUT', body: '{"steps":[1,2,3]}' },
      { method: 'PUT', body: '{"steps":[1,2,3]}' },
    ]);
  });

  it('lets other answers through untouched', async () => {
    vi.stubGlobal('fetch', async () => new Response('{}', { status: 409 }));
    const res = await authFetch(new Request('http://app.test/api/v1/tasks/1/move', { method: 'POST' }));
    expect(res.status).toBe(409);
    expect(sessionState.isRequired()).toBe(false);
  });
});
