import createClient from 'openapi-fetch';
import type { paths } from './schema';
import { authFetch } from '../auth/auth-fetch';
import { ApiError, problemOf } from './problem';

/** The one way pages reach the API: typed by the generated schema, signed in by the session cookie. */
export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '', fetch: authFetch });

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Resolves a client call to its data, or throws an ApiError (a problem, or `network` when no answer came). */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (err) {
    throw ApiError.network(err);
  }
  if (result.response.ok) return result.data as T;
  throw new ApiError(problemOf(result.error, result.response), { requestId: result.response.headers.get('x-request-id') ?? undefined });
}

/** The JSON body type of a path's method for status 200 (or 201). */
export type ResponseOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { 'application/json': infer T } } }
    ? T
    : R extends { 201: { content: { 'application/json': infer T } } }
      ? T
      : never
  : never;

/** The JSON request body type of a path's method. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;
