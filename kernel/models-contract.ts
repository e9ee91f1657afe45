import { readNdjsonStream } from './ndjson-stream.ts';

/**
 * How any package asks a language model for an answer without importing the models package
 * (plugins/models, see its README): through the broker, with the calling user's `ctx.meta`
 * (its `user.entity_id` picks the entity's keys).
 *
 *   const result = await ctx.call<ChatResult, ChatParams>(MODELS_CHAT_ACTION, {
 *     system: 'You edit workflows.', messages: [{ role: 'user', content: 'Add a wait step' }],
 *   });
 *
 *   const stream = await ctx.call<Readable, ChatParams>(MODELS_CHAT_STREAM_ACTION, { messages });
 *   for await (const line of readChatStream(stream)) {
 *     if (line.type === 'delta') send(line.text);
 *     else if (line.type === 'done') finish(line);      // the same fields as ChatResult
 *     else fail(line);                                  // { status, code, message }
 *   }
 *
 * `models.chat` throws problem errors: NOT_FOUND (api_key_id not the entity's),
 * MODELS_ERR_NO_KEY (422, no api_key_id and no default key), MODELS_ERR_KEY_UNREADABLE (409,
 * the stored key was sealed under another SECRET_KEY), MODELS_ERR_PROVIDER_REJECTED_KEY (502,
 * the provider answered 401/403), MODELS_ERR_PROVIDER (502, any other provider failure,
 * `provider_status` in the data), MODELS_ERR_PROVIDER_TIMEOUT (504, past
 * MODEL_REQUEST_TIMEOUT_SECONDS). It is not bound by REQUEST_TIMEOUT_SECONDS (its own timeout
 * is MODEL_REQUEST_TIMEOUT_SECONDS); a caller may still pass `{ timeout }` to ctx.call.
 *
 * `models.chatStream` throws the same errors for what is known before the provider is called
 * (validation, NOT_FOUND, MODELS_ERR_NO_KEY, MODELS_ERR_KEY_UNREADABLE); it then answers a byte
 * stream of NDJSON lines (ChatStreamLine): any number of `delta` lines, then exactly one `done`
 * or `error` line, whose `status` and `code` are those `models.chat` would have thrown.
 * Destroying the stream early aborts the provider request.
 */

export const MODELS_CHAT_ACTION = 'models.chat';
export const MODELS_CHAT_STREAM_ACTION = 'models.chatStream';

/** `openai_compatible`: any OpenAI-compatible chat-completions server (a local runtime, a gateway); its key names the base URL */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai_compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatParams {
  messages: ChatMessage[];
  /** the system prompt (OpenAI: a leading system message; Anthropic: the top-level `system`) */
  system?: string;
  /** one of the entity's keys; default: the entity's default key */
  api_key_id?: string;
  /** default: the key's default_model */
  model?: string;
  /** default: the provider's (Anthropic requires one: 4096 when not given) */
  max_tokens?: number;
  temperature?: number;
}

export interface ChatUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface ChatResult {
  text: string;
  /** the model the provider says answered (else the one requested) */
  model: string;
  provider: ModelProvider;
  api_key_id: string;
  /** as the provider reported it; 0 when it reported nothing */
  usage: ChatUsage;
}

export interface ChatDeltaLine {
  type: 'delta';
  text: string;
}

export interface ChatDoneLine extends ChatResult {
  type: 'done';
}

export interface ChatErrorLine {
  type: 'error';
  /** the HTTP status of the problem (502, 504, ...) */
  status: number;
  /** the problem code, e.g. MODELS_ERR_PROVIDER */
  code: string;
  message: string;
  /** the provider's own HTTP status, when it answered one */
  provider_status?: number | null;
}

export type ChatStreamLine = ChatDeltaLine | ChatDoneLine | ChatErrorLine;

/** One NDJSON line of a chat stream. */
export function chatStreamLine(line: ChatStreamLine): string {
  return `${JSON.stringify(line)}\n`;
}

/**
 * Reads a `models.chatStream` answer (or any NDJSON byte stream) line by line. A stream that
 * ends without a `done` or `error` line (the serving node went away) yields a final error line
 * with code `MODELS_ERR_STREAM_CUT`.
 */
export function readChatStream(stream: AsyncIterable<Buffer | string>): AsyncGenerator<ChatStreamLine> {
  return readNdjsonStream<ChatStreamLine>(stream, 'The chat stream ended before its done line.');
}
