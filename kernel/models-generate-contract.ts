import { readNdjsonStream } from './ndjson-stream.ts';
import type { ChatUsage, ModelProvider } from './models-contract.ts';

/**
 * One model turn with tools and structured output, asked of the `models` package through the
 * broker (plugins/models serves it on the AI SDK). This is the call the agent runtime, the AI
 * workflow nodes, chat and agent generation make: ONE turn at a time, never the SDK's own
 * multi-step loop (the caller commits every turn before the next, so a crash loses nothing).
 *
 *   const turn = await ctx.call<GenerateResult, GenerateParams>(MODELS_GENERATE_ACTION, {
 *     system: 'You triage tickets.',
 *     messages: [{ role: 'user', content: 'Printer on fire' }],
 *     tools: [{ name: 'tasks', description: '...', parameters: { type: 'object', ... } }],
 *   });
 *   if (turn.tool_calls.length) ... run them, append an assistant message carrying the calls
 *   and one `tool` message per result, and call again ...
 *
 *   const stream = await ctx.call<Readable, GenerateStreamParams>(MODELS_GENERATE_STREAM_ACTION, { ...params, local_objects: true });
 *   for await (const line of readGenerateStream(stream)) { ... }   // GenerateStreamLine
 *
 * Errors are those of `models.chat` (kernel/models-contract.ts): NOT_FOUND, MODELS_ERR_NO_KEY,
 * MODELS_ERR_KEY_UNREADABLE, MODELS_ERR_PROVIDER_REJECTED_KEY, MODELS_ERR_PROVIDER,
 * MODELS_ERR_PROVIDER_TIMEOUT; plus MODELS_ERR_BASE_URL_BLOCKED (422) when a key's base URL
 * points at a refused address, and MODELS_ERR_OUTPUT_INVALID (502) when `output` was asked and
 * the answer does not match its schema (the error's data carries `problems` and the raw `text`,
 * so a caller can run its own repair turn). Retryable provider failures (429 honouring
 * Retry-After, 5xx, a dropped connection) are retried with backoff inside the call before the
 * error is thrown.
 */

export const MODELS_GENERATE_ACTION = 'models.generate';
export const MODELS_GENERATE_STREAM_ACTION = 'models.generateStream';

export interface ToolCall {
  /** the provider's id of the call (echoed back in the tool result) */
  id: string;
  name: string;
  /** the parsed JSON arguments; a provider sending unparseable JSON gives `{}` and `arguments_error` */
  arguments: unknown;
  /** set when the provider's argument text was not JSON: what it was, cut at 2,000 characters */
  arguments_error?: string;
}

/** A part of a user message beside its text: a file kept in the object store. */
export interface FilePart {
  type: 'file';
  /** key in the kernel object store (kernelOf(broker).objects) */
  object_key: string;
  media_type: string;
  filename?: string;
}

export interface TextPart {
  type: 'text';
  text: string;
}

export type GenerateMessage =
  | { role: 'user'; content: string | (TextPart | FilePart)[] }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; tool_name: string; content: unknown; is_error?: boolean };

/** A tool as the model is told of it (no execute: the caller runs tools itself). */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema) */
  parameters: Record<string, unknown>;
}

export interface GenerateParams {
  messages: GenerateMessage[];
  system?: string;
  tools?: ToolSpec[];
  /** default `auto` when tools are given */
  tool_choice?: 'auto' | 'none' | 'required' | { tool: string };
  /** ask for one JSON value matching `schema` (structured output); the result's `object` holds it */
  output?: { schema: Record<string, unknown>; name?: string; description?: string };
  api_key_id?: string;
  model?: string;
  max_tokens?: number;
  temperature?: number;
  /** what the call is for, recorded with its usage (`chat`, `agent`, `node.llm`, ...) */
  purpose?: string;
  /** usage attribution, recorded with the call's token counts */
  workspace_id?: string;
  agent_id?: string;
  run_id?: string;
}

/** `models.generateStream` params: a caller reading with readGenerateStream may ask for objects when on the same node (kernel/ndjson-stream.ts). */
export interface GenerateStreamParams extends GenerateParams {
  local_objects?: boolean;
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface GenerateResult {
  text: string;
  tool_calls: ToolCall[];
  /** with `output`: the parsed value, checked against the schema */
  object?: unknown;
  finish_reason: FinishReason;
  usage: ChatUsage;
  model: string;
  provider: ModelProvider;
  api_key_id: string;
  /** provider attempts made (1 unless a retryable failure was retried) */
  attempts: number;
}

/** NDJSON lines of `models.generateStream`: deltas as they arrive, then one `done` or `error`. */
export type GenerateStreamLine =
  | { type: 'text.delta'; text: string }
  | { type: 'tool.call.delta'; id: string; name: string; args_delta: string }
  | { type: 'tool.call'; call: ToolCall }
  | { type: 'retry'; attempt: number; wait_ms: number; reason: string }
  | ({ type: 'done' } & GenerateResult)
  | {
      type: 'error';
      status: number;
      code: string;
      message: string;
      provider_status?: number | null;
      /** MODELS_ERR_OUTPUT_INVALID only: where the answer breaks the schema, and the answer itself */
      problems?: { path: string; message: string }[];
      text?: string;
    };

export function generateStreamLine(line: GenerateStreamLine): string {
  return `${JSON.stringify(line)}\n`;
}

/**
 * Reads a `models.generateStream` answer line by line. A stream that ends without its `done` or
 * `error` line yields a final error line with code `MODELS_ERR_STREAM_CUT`.
 */
export function readGenerateStream(stream: AsyncIterable<Buffer | string | object>): AsyncGenerator<GenerateStreamLine> {
  return readNdjsonStream<GenerateStreamLine>(stream, 'The model stream ended before its done line.');
}
