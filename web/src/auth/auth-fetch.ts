import { sessionState } from './session-state';

/**
 * fetch for the API client: a 401 opens the login form over the page and the same request is
 * sent again once the person has signed in. The token never reaches page scripts: the web
 * listener keeps it in an HttpOnly cookie and adds the Authorization header itself.
 */
export async function authFetch(input: Request): Promise<Response> {
  const again = input.clone();
  const res = await fetch(input);
  if (res.status !== 401) return res;
  await sessionState.require();
  return fetch(again);
}
