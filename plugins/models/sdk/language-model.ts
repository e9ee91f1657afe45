import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelProvider } from '../../../kernel/models-contract.ts';

/** Everything the SDK provider needs for one call: the opened key and where to send it. */
export interface ModelTarget {
  provider: ModelProvider;
  apiKey: string;
  model: string;
  /** OpenAI: base of `/chat/completions`; Anthropic: base of `/v1/messages`; compatible: base of `/chat/completions` */
  baseUrl: string;
  /** the fetch the provider uses (the SSRF-guarded one for a key's own base_url) */
  fetch: typeof fetch;
}

/** `base` + `/` + `path`, whatever slashes the base ends with. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

/**
 * The AI SDK language model of a target. OpenAI is asked through the chat-completions API
 * (`openai.chat`), not the Responses API, so any server copying it works the same; Anthropic
 * through its messages API; `openai_compatible` through @ai-sdk/openai-compatible with usage
 * in streams and structured outputs on.
 */
export function languageModel(t: ModelTarget): LanguageModel {
  switch (t.provider) {
    case 'openai':
      return createOpenAI({ apiKey: t.apiKey, baseURL: t.baseUrl.replace(/\/+$/, ''), fetch: t.fetch }).chat(t.model);
    case 'anthropic':
      return createAnthropic({ apiKey: t.apiKey, baseURL: joinUrl(t.baseUrl, 'v1'), fetch: t.fetch })(t.model);
    case 'openai_compatible':
      return createOpenAICompatible({ name: 'openai_compatible', apiKey: t.apiKey, baseURL: t.baseUrl.replace(/\/+$/, ''), fetch: t.fetch, includeUsage: true, supportsStructuredOutputs: true }).chatModel(t.model);
  }
}
