import { ApiError, problemOf } from '../api/problem';

/**
 * Sign-in and sign-out go to the web listener's /session route (not /api): it asks the API
 * for a token and keeps it in an HttpOnly, SameSite=Strict cookie.
 */
export async function signIn(email: string, password: string): Promise<void> {
  await sessionCall('POST', '/session', { email, password });
}

export async function signOut(): Promise<void> {
  await sessionCall('DELETE', '/session');
}

/** renews the token before it expires (the old one is revoked) */
export async function refreshSession(): Promise<void> {
  await sessionCall('POST', '/session/refresh');
}

async function sessionCall(method: string, path: string, body?: unknown): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch (err) {
    throw ApiError.network(err);
  }
  if (res.ok) return;
  const payload: unknown = await res.json().catch(() => undefined);
  throw new ApiError(problemOf(payload, res), { requestId: res.headers.get('x-request-id') ?? undefined });
}
