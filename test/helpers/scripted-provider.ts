import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendJson, splitArguments, splitWords, streamAnthropic, streamOpenAi, wholeAnthropic, wholeOpenAi, type WireAnswer } from './scripted-provider-wire.ts';

/**
 * A local model provider for tests: one `node:http` server on 127.0.0.1 that plays both the
 * OpenAI-compatible chat-completions API and the Anthropic messages API, answering from a
 * script and recording every request.
 *
 *   const provider = await startScriptedProvider();
 *   test.after.always(() => provider.close());
 *   // point the kernel at it:
 *   //   MODEL_OPENAI_BASE_URL=`${provider.url}/v1`   (POST {base}/chat/completions)
 *   //   MODEL_ANTHROPIC_BASE_URL=provider.url        (POST {base}/v1/messages)
 *   provider.replies.push({ text: 'Hello there' });                  // next answer, either API
 *   provider.replies.push({ text: 'Let me look.', tool_calls: [{ name: 'search', arguments: { q: 'x' } }] });
 *   provider.replies.push({ object: { title: 'A', done: true } });   // a structured-output answer
 *   provider.replies.push({ error: 429, retry_after: 1 });           // 429 with Retry-After: 1
 *   provider.replies.push((request) => ({ text: `you sent ${request.body.messages.length} messages` }));
 *   provider.replies.push(() => released.then(() => ({ text: 'later' })));  // held until `released` settles
 *   ... call something that reaches the provider ...
 *   provider.requests.at(-1)  // { api: 'anthropic', path: '/v1/messages', headers, body }
 *   await provider.closed(provider.requests.at(-1)!)  // its connection closed (answered, or cut by the client)
 *
 * Routing: any POST whose path ends in `/chat/completions` is OpenAI, any POST whose path ends
 * in `/messages` is Anthropic; anything else is a 404 (still recorded, `api: 'unknown'`).
 *
 * Each request takes the first reply off `replies` (a queue: push to script, in order); a
 * function reply is called with the recorded request and answers what it returns. With the
 * queue empty it gets `fallback` when one was given, else a 500 saying the script ran out.
 * The request body's `stream: true` selects server-sent events in the API's own format
 * (OpenAI: `chat.completion.chunk` data lines, tool calls as `tool_calls` deltas whose
 * `arguments` arrive in pieces, a usage chunk when `stream_options.include_usage`, then
 * `data: [DONE]`; Anthropic: `message_start`, `content_block_start`, `content_block_delta`
 * (`text_delta`, `input_json_delta` for tool arguments)…, `content_block_stop`,
 * `message_delta`, `message_stop`); otherwise one JSON completion. A text reply's `chunks` are
 * the deltas sent; `text` alone is sent in word-sized chunks. Error replies answer with the
 * API's own error body (`{error: {message, type}}` / `{type: 'error', error: {type, message}}`).
 *
 * Structured output (`object`): the SDK asks OpenAI for `response_format: json_schema` and
 * Anthropic either for `output_config.format` (answered as text) or, for models it does not
 * know to support that, with a forced tool named `json` (answered as that tool's call); the
 * answer is the value's JSON either way, so the SDK reads it back as the object.
 */

/** A function reply may answer a promise: the request waits for it (a gate a test opens when it wants). */
export type ScriptedReply = StaticReply | ((request: RecordedRequest) => StaticReply | Promise<StaticReply>);

export type StaticReply =
  | TextReply
  | { error: number; message?: string; type?: string; /** seconds, sent as Retry-After */ retry_after?: number | string; /** sent as retry-after-ms */ retry_after_ms?: number }
  | { hang: true }
  /** drops the connection without an answer (a connection reset) */
  | { reset: true }
  | { raw: { status?: number; headers?: Record<string, string>; body: string } };

export interface ScriptedToolCall {
  /** default: call_<n> */
  id?: string;
  name: string;
  /** an object is sent as its JSON; a string is sent as is (so it may be not JSON at all) */
  arguments: unknown;
  /** the argument text's stream pieces; default: the text in three pieces */
  chunks?: string[];
}

export interface TextReply {
  /** the whole answer; split into word-sized chunks when streaming unless `chunks` is given */
  text?: string;
  /** the stream deltas, in order (their concatenation is the answer) */
  chunks?: string[];
  /** tool calls after the text, in order */
  tool_calls?: ScriptedToolCall[];
  /** a structured-output answer: the value's JSON is the answer (see above) */
  object?: unknown;
  /** the model the answer names; default: the request's `model` */
  model?: string;
  /** token counts reported; default: input 11, output = number of chunks */
  usage?: { input_tokens: number; output_tokens: number };
  /** false: answer one JSON completion even when the request asked to stream */
  stream?: boolean;
  /** after the chunks, fail the stream with the API's in-stream error event carrying this message */
  stream_error?: string;
  /** after the headers (streaming only), stop sending and never finish (a provider that stalls) */
  stall_after_headers?: boolean;
  /** after the text chunks (streaming only), stop sending and never finish (a provider that stalls mid-stream) */
  stall_after_chunks?: boolean;
}

export interface RecordedRequest {
  api: 'openai' | 'anthropic' | 'unknown';
  method: string;
  /** path with query string, as received */
  path: string;
  /** lower-cased names, as node:http gives them */
  headers: IncomingHttpHeaders;
  /** the parsed JSON body (the raw text when it is not JSON) */
  body: any;
}

export interface ScriptedProvider {
  /** `http://127.0.0.1:<port>`, no trailing slash */
  url: string;
  /** the script: the next request takes the first reply */
  replies: ScriptedReply[];
  /** every request received, in order */
  requests: RecordedRequest[];
  /** resolves with the next request that arrives after this call */
  nextRequest(): Promise<RecordedRequest>;
  /** resolves once the connection of that request is closed (answered, or cut by either side) */
  closed(request: RecordedRequest): Promise<void>;
  /** stops the server, cutting any hanging or stalled connection */
  close(): Promise<void>;
}

export async function startScriptedProvider(opts: { fallback?: ScriptedReply; port?: number; host?: string } = {}): Promise<ScriptedProvider> {
  const replies: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: ((r: RecordedRequest) => void)[] = [];
  const closings = new WeakMap<RecordedRequest, Promise<void>>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const pathname = new URL(path, 'http://local').pathname;
      const api = req.method !== 'POST' ? 'unknown' : pathname.endsWith('/chat/completions') ? 'openai' : pathname.endsWith('/messages') ? 'anthropic' : 'unknown';
      let body: any = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        /* keep the raw text */
      }
      const recorded: RecordedRequest = { api, method: req.method ?? 'GET', path, headers: req.headers, body };
      closings.set(recorded, new Promise<void>((resolve) => (res.writableEnded || res.destroyed ? resolve() : res.once('close', () => resolve()))));
      requests.push(recorded);
      waiters.shift()?.(recorded);
      if (api === 'unknown') return sendJson(res, 404, { error: { message: `no route ${req.method} ${pathname}`, type: 'not_found' } });
      const scripted = replies.shift() ?? opts.fallback ?? { error: 500, message: 'the scripted provider has no reply left', type: 'script_exhausted' };
      const fail = (err: unknown) => sendJson(res, 500, { error: { message: `the scripted reply failed: ${(err as Error).message}`, type: 'script_error' } });
      try {
        const reply = typeof scripted === 'function' ? scripted(recorded) : scripted;
        if (reply instanceof Promise) reply.then((r) => answer(api, r, body ?? {}, res)).catch(fail);
        else answer(api, reply, body ?? {}, res);
      } catch (err) {
        fail(err);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    replies,
    requests,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    closed: (request) => closings.get(request) ?? Promise.reject(new Error('not a request of this provider')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(api: 'openai' | 'anthropic', reply: StaticReply, request: any, res: ServerResponse): void {
  if ('hang' in reply) return; // never answers; close() cuts it
  if ('reset' in reply) return void res.socket?.resetAndDestroy();
  if ('raw' in reply) {
    res.writeHead(reply.raw.status ?? 200, reply.raw.headers ?? { 'content-type': 'application/json' });
    return void res.end(reply.raw.body);
  }
  if ('error' in reply) {
    const message = reply.message ?? `scripted error ${reply.error}`;
    const headers: Record<string, string> = {};
    if (reply.retry_after !== undefined) headers['retry-after'] = String(reply.retry_after);
    if (reply.retry_after_ms !== undefined) headers['retry-after-ms'] = String(reply.retry_after_ms);
    if (api === 'openai') return sendJson(res, reply.error, { error: { message, type: reply.type ?? 'invalid_request_error', code: null } }, headers);
    return sendJson(res, reply.error, { type: 'error', error: { type: reply.type ?? 'api_error', message } }, headers);
  }
  const wire = resolve(api, reply, request);
  const streaming = request.stream === true && reply.stream !== false;
  if (!streaming) return api === 'openai' ? wholeOpenAi(res, wire) : wholeAnthropic(res, wire);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  if (reply.stall_after_headers) return;
  if (api === 'openai') streamOpenAi(res, request, wire);
  else streamAnthropic(res, wire);
}

/** A text reply as the wire answer: chunks, tool calls with their argument pieces, usage. */
function resolve(api: 'openai' | 'anthropic', reply: TextReply, request: any): WireAnswer {
  let chunks = reply.chunks ?? splitWords(reply.text ?? '');
  const calls = [...(reply.tool_calls ?? [])];
  if (reply.object !== undefined) {
    const json = JSON.stringify(reply.object);
    const forcedJsonTool = api === 'anthropic' && Array.isArray(request.tools) && request.tools.some((t: { name?: string }) => t.name === 'json') && request.tool_choice?.name === 'json';
    if (forcedJsonTool) calls.push({ id: 'toolu_json', name: 'json', arguments: reply.object });
    else chunks = splitArguments(json);
  }
  const toolCalls = calls.map((c, i) => {
    const text = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {});
    return { id: c.id ?? `call_${i + 1}`, name: c.name, chunks: c.chunks ?? splitArguments(text) };
  });
  return {
    model: reply.model ?? String(request.model ?? 'scripted-model'),
    chunks,
    toolCalls,
    usage: reply.usage ?? { input_tokens: 11, output_tokens: chunks.length + toolCalls.length },
    streamError: reply.stream_error,
    stallAfterChunks: reply.stall_after_chunks,
  };
}
