import type { ServerResponse } from 'node:http';

/**
 * The two wire formats the scripted provider speaks (OpenAI chat completions, Anthropic
 * messages), streamed and whole, for one resolved answer: text chunks, tool calls with their
 * argument text in chunks, usage, an optional in-stream error.
 */

export interface WireToolCall {
  id: string;
  name: string;
  /** the argument text, in the chunks it is streamed in (their join is the whole text) */
  chunks: string[];
}

export interface WireAnswer {
  model: string;
  chunks: string[];
  toolCalls: WireToolCall[];
  usage: { input_tokens: number; output_tokens: number };
  streamError?: string;
  /** after the text chunks, send nothing more and never finish (a provider that stalls mid-stream) */
  stallAfterChunks?: boolean;
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

export function wholeOpenAi(res: ServerResponse, a: WireAnswer): void {
  const text = a.chunks.join('');
  const toolCalls = a.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.chunks.join('') } }));
  sendJson(res, 200, {
    id: 'chatcmpl-scripted', object: 'chat.completion', created: 0, model: a.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: a.usage.input_tokens, completion_tokens: a.usage.output_tokens, total_tokens: a.usage.input_tokens + a.usage.output_tokens },
  });
}

export function wholeAnthropic(res: ServerResponse, a: WireAnswer): void {
  const text = a.chunks.join('');
  const content = [
    ...(text || !a.toolCalls.length ? [{ type: 'text', text }] : []),
    ...a.toolCalls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: parseOr(c.chunks.join(''), {}) })),
  ];
  sendJson(res, 200, { id: 'msg_scripted', type: 'message', role: 'assistant', model: a.model, content, stop_reason: a.toolCalls.length ? 'tool_use' : 'end_turn', stop_sequence: null, usage: a.usage });
}

export function streamOpenAi(res: ServerResponse, request: any, a: WireAnswer): void {
  const data = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    data({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: a.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  chunk({ role: 'assistant', content: '' }, null);
  for (const text of a.chunks) chunk({ content: text }, null);
  if (a.stallAfterChunks) return;
  a.toolCalls.forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null);
    for (const piece of call.chunks) chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null);
  });
  if (a.streamError !== undefined) {
    data({ error: { message: a.streamError, type: 'server_error' } });
    return void res.end();
  }
  chunk({}, a.toolCalls.length ? 'tool_calls' : 'stop');
  if (request.stream_options?.include_usage) {
    data({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: a.model, choices: [], usage: { prompt_tokens: a.usage.input_tokens, completion_tokens: a.usage.output_tokens, total_tokens: a.usage.input_tokens + a.usage.output_tokens } });
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

export function streamAnthropic(res: ServerResponse, a: WireAnswer): void {
  const event = (type: string, value: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`);
  event('message_start', { message: { id: 'msg_scripted', type: 'message', role: 'assistant', model: a.model, content: [], stop_reason: null, usage: { input_tokens: a.usage.input_tokens, output_tokens: 1 } } });
  let index = 0;
  const withText = a.chunks.length > 0 || a.toolCalls.length === 0;
  if (withText) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('ping', {});
    for (const text of a.chunks) event('content_block_delta', { index, delta: { type: 'text_delta', text } });
  }
  if (a.stallAfterChunks) return;
  if (a.streamError !== undefined) {
    event('error', { error: { type: 'overloaded_error', message: a.streamError } });
    return void res.end();
  }
  if (withText) event('content_block_stop', { index: index++ });
  for (const call of a.toolCalls) {
    event('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    for (const piece of call.chunks) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    event('content_block_stop', { index: index++ });
  }
  event('message_delta', { delta: { stop_reason: a.toolCalls.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: a.usage.output_tokens } });
  event('message_stop', {});
  res.end();
}

/** `"a b c"` → `["a", " b", " c"]`: deltas whose concatenation is the text. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? (text ? [text] : []);
}

/** An argument text in three pieces (split anywhere, inside keys and strings too), as providers stream it. */
export function splitArguments(text: string): string[] {
  if (text.length < 3) return text ? [text] : [];
  const a = Math.floor(text.length / 3);
  const b = Math.floor((2 * text.length) / 3);
  return [text.slice(0, a), text.slice(a, b), text.slice(b)];
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return fallback;
  }
}
