import type { ProviderAdapter, ProviderEvent } from './types.ts';
import { ProviderFailure } from './types.ts';
import { joinUrl, mergeUsage, objectOf } from './json.ts';

const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; this is sent when the caller gives none. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const USAGE_NAMES = { input: 'input_tokens', output: 'output_tokens' };

/**
 * The Anthropic messages API: `POST {base}/v1/messages` with `x-api-key` and
 * `anthropic-version: 2023-06-01`, streamed; the system prompt is the top-level `system` field
 * and `max_tokens` is always sent.
 */
export const anthropic: ProviderAdapter = {
  request(req) {
    return {
      url: joinUrl(req.baseUrl, 'v1/messages'),
      headers: { 'x-api-key': req.apiKey, 'anthropic-version': ANTHROPIC_VERSION, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: {
        model: req.model,
        max_tokens: req.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
        ...(req.system ? { system: req.system } : {}),
        messages: req.messages.map(({ role, content }) => ({ role, content })),
        stream: true,
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      },
    };
  },
  onEvent({ data }, state) {
    const event = objectOf(JSON.parse(data));
    switch (event.type) {
      case 'message_start': {
        const message = objectOf(event.message);
        if (typeof message.model === 'string' && message.model) state.model = message.model;
        mergeUsage(state, message.usage, USAGE_NAMES);
        return [];
      }
      case 'content_block_delta': {
        const delta = objectOf(event.delta);
        const events: ProviderEvent[] = [];
        if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text) events.push({ type: 'delta', text: delta.text });
        return events;
      }
      case 'message_delta': {
        // output_tokens here is the running total
        mergeUsage(state, event.usage, USAGE_NAMES);
        return [];
      }
      case 'message_stop':
        state.complete = state.closed = true;
        return [];
      case 'error':
        throw new ProviderFailure('provider', anthropic.errorMessage(event) ?? 'The provider sent an error in the stream.');
      default:
        return []; // ping, content_block_start, content_block_stop, and event types added later
    }
  },
  fromJson(body, state) {
    const message = objectOf(body);
    if (typeof message.model === 'string' && message.model) state.model = message.model;
    mergeUsage(state, message.usage, USAGE_NAMES);
    const blocks = Array.isArray(message.content) ? message.content.map(objectOf) : [];
    const text = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string).join('');
    state.complete = state.closed = true;
    return text ? [{ type: 'delta', text }] : [];
  },
  errorMessage(body) {
    const message = objectOf(objectOf(body).error).message ?? objectOf(body).message;
    return typeof message === 'string' ? message : undefined;
  },
};
