import { experimental_streamLanguageModelCall as streamLanguageModelCall, generateText, jsonSchema, Output, tool, type ModelMessage, type ToolChoice, type ToolSet } from 'ai';
import type { ChatUsage } from '../../../kernel/models-contract.ts';
import type { FinishReason, GenerateParams, ToolCall } from '../../../kernel/models-generate-contract.ts';
import { ProviderFailure } from './failure.ts';
import { languageModel, type ModelTarget } from './language-model.ts';
import { cachedLanguageModel } from './model-cache.ts';

// the SDK would print its warnings (an unsupported setting, say) to the console: the package logs what matters itself
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** What one turn streams as it goes (the stream lines before `done`). */
export type TurnEvent =
  | { type: 'text.delta'; text: string }
  | { type: 'tool.call.delta'; id: string; name: string; args_delta: string }
  | { type: 'tool.call'; call: ToolCall }
  | { type: 'retry'; attempt: number; wait_ms: number; reason: string };

export interface AttemptRequest {
  target: ModelTarget;
  messages: ModelMessage[];
  system?: string;
  tools?: GenerateParams['tools'];
  tool_choice?: GenerateParams['tool_choice'];
  output?: GenerateParams['output'];
  max_tokens?: number;
  temperature?: number;
}

export interface AttemptOutcome {
  text: string;
  tool_calls: ToolCall[];
  finish_reason: FinishReason;
  usage: ChatUsage;
  /** the model the provider says answered, when it said */
  model?: string;
}

/** Largest argument text quoted back when a provider's tool arguments are not JSON. */
const MAX_BAD_ARGUMENTS = 2000;

/**
 * One model turn through the SDK: its single-call stream (`streamLanguageModelCall`: the
 * prompt, tools and output standardized as streamText does, the provider's own wire format,
 * tool calls parsed), without streamText's multi-step pipeline, whose web-stream stages cost
 * more CPU per token than the rest of a chat stream together. Tools are declared without
 * `execute` (the caller runs them), no SDK retries (the caller's loop retries, so it can honour
 * Retry-After and report each retry). `emit` sees deltas and calls as they come; the outcome is
 * the whole turn. Throws what the SDK reported (a provider error status, an in-stream error, a
 * cut stream) for the caller to classify.
 */
export async function runAttempt(req: AttemptRequest, signal: AbortSignal, emit: (e: TurnEvent) => void): Promise<AttemptOutcome> {
  try {
    return await streamAttempt(req, signal, emit);
  } catch (err) {
    const answer = findNotStreamed(err);
    if (!answer) throw err;
    return wholeAnswer(req, answer, signal, emit);
  }
}

/** Anthropic requires max_tokens; this is sent when the caller gives none (the SDK would send the model's maximum). */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** The SDK settings of a turn, shared by the streaming call and the whole-answer fallback. */
function sdkOptions(req: AttemptRequest, signal: AbortSignal) {
  const maxTokens = req.max_tokens ?? (req.target.provider === 'anthropic' ? ANTHROPIC_DEFAULT_MAX_TOKENS : undefined);
  return {
    messages: req.messages,
    ...(req.system ? { instructions: req.system } : {}),
    ...(req.tools?.length ? { tools: toolSet(req.tools), toolChoice: toolChoiceOf(req.tool_choice) } : {}),
    ...(req.output ? { output: Output.object({ schema: jsonSchema(req.output.schema as never), name: req.output.name, description: req.output.description }) } : {}),
    ...(maxTokens !== undefined ? { maxOutputTokens: maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    abortSignal: signal,
  };
}

async function streamAttempt(req: AttemptRequest, signal: AbortSignal, emit: (e: TurnEvent) => void): Promise<AttemptOutcome> {
  const { stream } = await streamLanguageModelCall({
    ...sdkOptions(req, signal),
    model: cachedLanguageModel({ ...req.target, fetch: catchingWholeAnswers(req.target.fetch) }),
  });
  let text = '';
  const calls: ToolCall[] = [];
  const names = new Map<string, string>();
  let finish: { reason: FinishReason; raw: string | undefined; usage: ChatUsage } | undefined;
  let model: string | undefined;
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        if (!part.text) break;
        text += part.text;
        emit({ type: 'text.delta', text: part.text });
        break;
      case 'tool-input-start':
        names.set(part.id, part.toolName);
        break;
      case 'tool-input-delta':
        if (part.delta) emit({ type: 'tool.call.delta', id: part.id, name: names.get(part.id) ?? '', args_delta: part.delta });
        break;
      case 'tool-call': {
        const call = toolCallOf(part as unknown as RawToolCall);
        calls.push(call);
        emit({ type: 'tool.call', call });
        break;
      }
      case 'model-call-response-metadata':
        model = part.modelId || model;
        break;
      case 'model-call-end':
        finish = { reason: part.finishReason as FinishReason, raw: part.rawFinishReason, usage: usageOf(part.usage) };
        break;
      case 'error':
        throw part.error;
      default:
        break;
    }
  }
  // an abort may end the SDK's stream rather than fail it: either way the turn did not end
  if (signal.aborted) throw signal.reason ?? new Error('aborted');
  if (!finish || finish.raw === undefined) throw new ProviderFailure('provider', 'The provider stream ended before the answer was complete.');
  return { text, tool_calls: calls, finish_reason: finish.reason, usage: finish.usage, model };
}

/**
 * A server that ignores `stream: true` and answers one JSON completion: the body is kept and
 * handed to the SDK's non-streaming path (no second request), so the SDK still does the reading.
 */
class NotStreamedAnswer extends Error {
  constructor(
    readonly body: string,
    readonly status: number,
    readonly headers: Headers,
  ) {
    super('the provider answered one JSON completion to a streaming request');
    this.name = 'NotStreamedAnswer';
  }
}

/** one wrapper per inner fetch, so that the models made on it can be reused (model-cache.ts) */
const catching = new WeakMap<typeof fetch, typeof fetch>();

function catchingWholeAnswers(inner: typeof fetch): typeof fetch {
  let wrapped = catching.get(inner);
  if (wrapped) return wrapped;
  wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await inner(input, init);
    const streaming = typeof init?.body === 'string' && /"stream"\s*:\s*true/.test(init.body);
    if (streaming && res.ok && /\bjson\b/i.test(res.headers.get('content-type') ?? '')) throw new NotStreamedAnswer(await res.text(), res.status, res.headers);
    return res;
  }) as typeof fetch;
  catching.set(inner, wrapped);
  return wrapped;
}

function findNotStreamed(err: unknown): NotStreamedAnswer | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) if (e instanceof NotStreamedAnswer) return e;
  return undefined;
}

async function wholeAnswer(req: AttemptRequest, answer: NotStreamedAnswer, signal: AbortSignal, emit: (e: TurnEvent) => void): Promise<AttemptOutcome> {
  const replay = (async () => new Response(answer.body, { status: answer.status, headers: answer.headers })) as unknown as typeof fetch;
  const result = await generateText({ ...sdkOptions(req, signal), maxRetries: 0, model: languageModel({ ...req.target, fetch: replay }) });
  if (result.text) emit({ type: 'text.delta', text: result.text });
  const calls = result.toolCalls.map((c) => toolCallOf(c as unknown as RawToolCall));
  for (const call of calls) emit({ type: 'tool.call', call });
  return { text: result.text, tool_calls: calls, finish_reason: result.finishReason as FinishReason, usage: usageOf(result.usage), model: result.response.modelId || undefined };
}

function toolSet(tools: NonNullable<GenerateParams['tools']>): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.parameters as never) });
  return set;
}

function toolChoiceOf(choice: GenerateParams['tool_choice']): ToolChoice<ToolSet> {
  if (choice === undefined) return 'auto';
  return typeof choice === 'string' ? choice : { type: 'tool', toolName: choice.tool };
}

interface RawToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
  error?: unknown;
}

/** An SDK tool call as the contract's: arguments that were not JSON give `{}` and `arguments_error`. */
function toolCallOf(part: RawToolCall): ToolCall {
  if (part.invalid && typeof part.input === 'string') {
    return { id: part.toolCallId, name: part.toolName, arguments: {}, arguments_error: `The arguments are not JSON: ${part.input.slice(0, MAX_BAD_ARGUMENTS)}` };
  }
  return { id: part.toolCallId, name: part.toolName, arguments: part.input ?? {} };
}

function usageOf(u: { inputTokens?: number; outputTokens?: number } | undefined): ChatUsage {
  const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  return { input_tokens: n(u?.inputTokens), output_tokens: n(u?.outputTokens) };
}
