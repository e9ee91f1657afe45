import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
 *   provider.replies.push({ error: 401, message: 'invalid x-api-key' });
 *   ... call something that reaches the provider ...
 *   provider.requests.at(-1)  // { api: 'anthropic', path: '/v1/messages', headers, body }
 *
 * Routing: any POST whose path ends in `/chat/completions` is OpenAI, any POST whose path ends
 * in `/messages` is Anthropic; anything else is a 404 (still recorded, `api: 'unknown'`).
 *
 * Each request takes the first reply off `replies` (a queue: push to script, in order). With
 * the queue empty it gets `fallback` when one was given, else a 500 saying the script ran out.
 * The request body's `stream: true` selects server-sent events in the API's own format
 * (OpenAI: `chat.completion.chunk` data lines, a usage chunk when
 * `stream_options.include_usage`, then `data: [DONE]`; Anthropic: `message_start`,
 * `content_block_start`, `content_block_delta`…, `content_block_stop`, `message_delta`,
 * `message_stop`); otherwise one JSON completion. A text reply's `chunks` are the deltas sent;
 * `text` alone is sent in word-sized chunks. Error replies answer with the API's own error body
 * (`{error: {message, type}}` / `{type: 'error', error: {type, message}}`).
 */

export type ScriptedReply =
  | TextReply
  | { error: number; message?: string; type?: string }
  | { hang: true }
  | { raw: { status?: number; headers?: Record<string, string>; body: string } };

export interface TextReply {
  /** the whole answer; split into word-sized chunks when streaming unless `chunks` is given */
  text?: string;
  /** the stream deltas, in order (their concatenation is the answer) */
  chunks?: string[];
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
  /** stops the server, cutting any hanging or stalled connection */
  close(): Promise<void>;
}

export async function startScriptedProvider(opts: { fallback?: ScriptedReply } = {}): Promise<ScriptedProvider> {
  const replies: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: ((r: RecordedRequest) => void)[] = [];
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
      requests.push(recorded);
      waiters.shift()?.(recorded);
      if (api === 'unknown') return sendJson(res, 404, { error: { message: `no route ${req.method} ${pathname}`, type: 'not_found' } });
      const reply = replies.shift() ?? opts.fallback ?? { error: 500, message: 'the scripted provider has no reply left', type: 'script_exhausted' };
      answer(api, reply, body ?? {}, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    replies,
    requests,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function answer(api: 'openai' | 'anthropic', reply: ScriptedReply, request: any, res: ServerResponse): void {
  if ('hang' in reply) return; // never answers; close() cuts it
  if ('raw' in reply) {
    res.writeHead(reply.raw.status ?? 200, reply.raw.headers ?? { 'content-type': 'application/json' });
    return void res.end(reply.raw.body);
  }
  if ('error' in reply) {
    const message = reply.message ?? `scripted error ${reply.error}`;
    if (api === 'openai') return sendJson(res, reply.error, { error: { message, type: reply.type ?? 'invalid_request_error', code: null } });
    return sendJson(res, reply.error, { type: 'error', error: { type: reply.type ?? 'api_error', message } });
  }
  const chunks = reply.chunks ?? splitWords(reply.text ?? '');
  const text = chunks.join('');
  const model = reply.model ?? String(request.model ?? 'scripted-model');
  const usage = reply.usage ?? { input_tokens: 11, output_tokens: chunks.length };
  const streaming = request.stream === true && reply.stream !== false;
  if (!streaming) {
    if (api === 'openai') {
      return sendJson(res, 200, {
        id: 'chatcmpl-scripted', object: 'chat.completion', created: 0, model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens },
      });
    }
    return sendJson(res, 200, {
      id: 'msg_scripted', type: 'message', role: 'assistant', model, content: [{ type: 'text', text }],
      stop_reason: 'end_turn', stop_sequence: null, usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  if (reply.stall_after_headers) return;
  if (api === 'openai') streamOpenAi(res, request, model, chunks, usage, reply.stream_error);
  else streamAnthropic(res, model, chunks, usage, reply.stream_error);
}

function streamOpenAi(res: ServerResponse, request: any, model: string, chunks: string[], usage: { input_tokens: number; output_tokens: number }, streamError?: string): void {
  const data = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    data({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  chunk({ role: 'assistant', content: '' }, null);
  for (const text of chunks) chunk({ content: text }, null);
  if (streamError !== undefined) {
    data({ error: { message: streamError, type: 'server_error' } });
    return void res.end();
  }
  chunk({}, 'stop');
  if (request.stream_options?.include_usage) {
    data({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens } });
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

function streamAnthropic(res: ServerResponse, model: string, chunks: string[], usage: { input_tokens: number; output_tokens: number }, streamError?: string): void {
  const event = (type: string, value: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`);
  event('message_start', { message: { id: 'msg_scripted', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('ping', {});
  for (const text of chunks) event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  if (streamError !== undefined) {
    event('error', { error: { type: 'overloaded_error', message: streamError } });
    return void res.end();
  }
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  event('message_stop', {});
  res.end();
}

/** `"a b c"` → `["a", " b", " c"]`: deltas whose concatenation is the text. */
function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? (text ? [text] : []);
}
