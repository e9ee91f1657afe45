import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { baseUrlRefusal } from '../../kernel/net/guarded-fetch.ts';
import type { BlockedHint } from '../../kernel/net/safe-request.ts';
import { MODELS_ERR } from './errors.ts';
import type { ModelsService } from './service.ts';

/** How a refused key base URL is explained (who refuses, which setting opens it). */
export const BASE_URL_HINT: BlockedHint = { who: 'a model key\'s base_url', setting: 'MODEL_BASE_URL_ALLOW' };

/** fastest-validator rule of `base_url` (the rest is checked by checkBaseUrl). */
export const BASE_URL_RULE = { type: 'string', trim: true, min: 1, max: 2048, description: 'Base URL of the provider API for this key (http or https). Required for openai_compatible; else the deployment default.' } as const;

const invalid = (message: string, type = 'url') => ERRORS.VALIDATION_FAILED('Validation failed.', [{ field: 'base_url', message: `The 'base_url' field ${message}.`, type }]);

/**
 * A key's base URL as stored, checked on save: http(s), no credentials, query or fragment, and
 * not resolving to an address the deployment refuses (loopback, link-local, metadata, private,
 * unique-local; MODEL_BASE_URL_ALLOW opens some). Every call checks again, on connect.
 */
export async function checkBaseUrl(svc: ModelsService, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) throw invalid('must not carry credentials (the key is sent as the API requires)');
  if (url.search || url.hash) throw invalid('must not carry a query or fragment');
  let why: string | undefined;
  try {
    why = await baseUrlRefusal(url.toString(), svc.providers.policy);
  } catch (err) {
    throw invalid(`names a host that does not resolve (${(err as { code?: string }).code ?? 'lookup failed'})`, 'unresolvable');
  }
  if (why) {
    const message = `The 'base_url' field points at a refused address: ${why}. An operator can open it with MODEL_BASE_URL_ALLOW.`;
    throw MODELS_ERR.BASE_URL_BLOCKED(message, { field: 'base_url', errors: [{ field: 'base_url', message, type: 'blocked' }] });
  }
  return url.toString().replace(/\/+$/, '');
}
