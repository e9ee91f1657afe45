import type { LanguageModel } from 'ai';
import { languageModel, type ModelTarget } from './language-model.ts';

/**
 * The SDK language models of recent targets, reused across calls. Making one builds the
 * provider's response schemas (zod), which cost about as much CPU as a short answer's whole
 * stream; a model keeps no state of a call. Keyed by the fetch it uses and everything it sends
 * (provider, base URL, model, the opened key: a rotated key is another entry); the least
 * recently used goes when there are more than MAX_MODELS per fetch.
 */
const MAX_MODELS = 200;

const byFetch = new WeakMap<typeof fetch, Map<string, LanguageModel>>();

export function cachedLanguageModel(t: ModelTarget): LanguageModel {
  let models = byFetch.get(t.fetch);
  if (!models) byFetch.set(t.fetch, (models = new Map()));
  const key = `${t.provider}\0${t.baseUrl}\0${t.model}\0${t.apiKey}`;
  let model = models.get(key);
  if (model) models.delete(key);
  else model = languageModel(t);
  models.set(key, model);
  if (models.size > MAX_MODELS) models.delete(models.keys().next().value!);
  return model;
}
