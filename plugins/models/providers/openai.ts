import type { ProviderAdapter, ProviderEvent } from './types.ts';
import { ProviderFailure } from './types.ts';
import { joinUrl, mergeUsage, objectOf } from './json.ts';

const USAGE_NAMES = { input: 'prompt_tokens', output: 'completion_tokens' };

/**
 * Any OpenAI-compatible chat-completions API: `POST {base}/chat/completions` with
 * `Authorization: Bearer <key>`, streamed (`stream: true`, `stream_options.include_usage` for
 * the usage chunk). The system prompt is a leading `system` message. A server that answers one
 * JSON completion instead of a stream is read too.
 */
export const openAi: ProviderAdapter = {
  request(req) {
    const messages = [...(req.system ? [{ role: 'system', content: req.system }] : []), ...req.messages.map(({ role, content }) => ({ role, content }))];
    return {
      url: joinUrl(req.baseUrl, 'chat/completions'),
      headers: { Authorization: `Bearer ${req.apiKey}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: {
        model: req.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(req.max_tokens !== undefined ? { max_tokens: req.max_tokens } : {}),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      },
    };
  },
  onEvent({ data }, state) {
    if (data.trim() === '[DONE]') {
      state.complete = state.closed = true;
      return [];
    }
    const chunk = objectOf(JSON.parse(data));
    if (chunk.error) throw new ProviderFailure('provider', openAi.errorMessage(chunk) ?? 'The provider sent an error in the stream.');
    if (typeof chunk.model === 'string' && chunk.model) state.model = chunk.model;
    mergeUsage(state, chunk.usage, USAGE_NAMES);
    const events: ProviderEvent[] = [];
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const { delta, finish_reason } = objectOf(choice);
      const content = objectOf(delta).content;
      if (typeof content === 'string' && content) events.push({ type: 'delta', text: content });
      if (finish_reason) state.complete = true;
    }
    return events;
  },
  fromJson(body, state) {
    const completion = objectOf(body);
    if (typeof completion.model === 'string' && completion.model) state.model = completion.model;
    mergeUsage(state, completion.usage, USAGE_NAMES);
    const choices = Array.isArray(completion.choices) ? completion.choices : [];
    const content = objectOf(objectOf(choices[0]).message).content;
    if (typeof content !== 'string') throw new ProviderFailure('provider', 'The provider answered a completion without text.');
    state.complete = state.closed = true;
    return content ? [{ type: 'delta', text: content }] : [];
  },
  errorMessage(body) {
    const b = objectOf(body);
    const error = b.error;
    if (typeof error === 'string') return error;
    const message = objectOf(error).message ?? b.message;
    return typeof message === 'string' ? message : undefined;
  },
};
