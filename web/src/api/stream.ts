import { ApiError, problemOf } from './problem';

/**
 * The body of a server-sent-events answer of the typed client (called with `parseAs: 'stream'`),
 * or the ApiError of a refused request (`network` when no answer came at all).
 */
export async function streamOf(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<ReadableStream<Uint8Array>> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (err) {
    throw ApiError.network(err);
  }
  const { response } = result;
  if (!response.ok) throw new ApiError(problemOf(result.error, response), { requestId: response.headers.get('x-request-id') ?? undefined });
  const body = result.data as { getReader?: unknown } | undefined;
  if (typeof body?.getReader !== 'function') throw ApiError.network(new Error('the answer has no body to stream'));
  return result.data as ReadableStream<Uint8Array>;
}
