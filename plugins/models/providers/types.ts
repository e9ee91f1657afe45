import type { ChatMessage, ChatUsage, ModelProvider } from '../../../kernel/models-contract.ts';

/** One request to a provider, everything resolved: key, model, base URL. */
export interface ProviderRequest {
  provider: ModelProvider;
  /** e.g. https://api.openai.com/v1 (OpenAI) or https://api.anthropic.com (Anthropic); no trailing slash needed */
  baseUrl: string;
  apiKey: string;
  model: string;
  messages: ChatMessage[];
  system?: string;
  max_tokens?: number;
  temperature?: number;
}

/** What a provider stream yields: text deltas, then one `done`. */
export type ProviderEvent = { type: 'delta'; text: string } | { type: 'done'; model: string; usage: ChatUsage };

/** The HTTP request for one provider (an adapter per API). */
export interface ProviderAdapter {
  request(req: ProviderRequest): { url: string; headers: Record<string, string>; body: unknown };
  /** reads one parsed SSE event (throws ProviderFailure for an in-stream error); returns its deltas */
  onEvent(event: { event?: string; data: string }, state: StreamState): ProviderEvent[];
  /** a whole JSON completion (a server that answered without streaming) */
  fromJson(body: unknown, state: StreamState): ProviderEvent[];
  /** the provider's error message in an error body */
  errorMessage(body: unknown): string | undefined;
}

/** What a stream learned so far (the model, the usage counts). */
export interface StreamState {
  model: string;
  usage: ChatUsage;
  /** the answer is whole (a finish reason or the final event was seen) */
  complete: boolean;
  /** no more events are expected (OpenAI `[DONE]`, Anthropic `message_stop`) */
  closed: boolean;
}

type ProviderFailureKind = 'rejected_key' | 'provider' | 'timeout' | 'aborted';

/**
 * A provider call that failed; `message` is already scrubbed of the key. The package maps it to
 * its problem errors (`errors.ts`); nothing here knows the broker.
 */
export class ProviderFailure extends Error {
  readonly kind: ProviderFailureKind;
  readonly providerStatus: number | null;
  constructor(kind: ProviderFailureKind, message: string, providerStatus: number | null = null) {
    super(message);
    this.name = 'ProviderFailure';
    this.kind = kind;
    this.providerStatus = providerStatus;
  }
}
