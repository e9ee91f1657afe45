import type { ModelProvider } from '../../kernel/models-contract.ts';
import { MODEL_PROVIDERS } from '../../kernel/models-contract.ts';
import type { ApiKeyAttributes } from './model.ts';

/** A key as the API shows it: metadata and prefix, never the secret. */
export interface ApiKeyView {
  id: string;
  name: string;
  provider: ModelProvider;
  key_prefix: string;
  default_model: string;
  base_url: string | null;
  is_default: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  rotated_at: string | null;
  last_used_at: string | null;
}

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);

export function apiKeyView(row: Omit<ApiKeyAttributes, 'sealed_key' | 'entity_id'>): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    key_prefix: row.key_prefix,
    default_model: row.default_model,
    base_url: row.base_url ?? null,
    is_default: row.is_default,
    created_by: row.created_by,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    rotated_at: iso(row.rotated_at),
    last_used_at: iso(row.last_used_at),
  };
}

const dateTime = { type: 'string', format: 'date-time' };
const nullableDateTime = { anyOf: [dateTime, { type: 'null' }] };

export const API_KEY_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1, maxLength: 120 },
    provider: { type: 'string', enum: [...MODEL_PROVIDERS] },
    key_prefix: { type: 'string', maxLength: 16, description: 'The first characters of the key (6, at most a third of it) and "…"; the key itself is never shown.' },
    default_model: { type: 'string', minLength: 1, maxLength: 200 },
    base_url: { type: ['string', 'null'], maxLength: 2048, description: 'The key\'s own API base URL; null: the deployment default (MODEL_OPENAI_BASE_URL / MODEL_ANTHROPIC_BASE_URL).' },
    is_default: { type: 'boolean', description: 'The key models.chat uses when the caller names none; at most one per entity.' },
    created_by: { type: ['string', 'null'] },
    created_at: dateTime,
    updated_at: dateTime,
    rotated_at: { ...nullableDateTime, description: 'When the raw key was last replaced (POST /api-keys/{id}/rotate).' },
    last_used_at: { ...nullableDateTime, description: 'When a model call last used the key.' },
  },
  required: ['id', 'name', 'provider', 'key_prefix', 'default_model', 'base_url', 'is_default', 'created_by', 'created_at', 'updated_at', 'rotated_at', 'last_used_at'],
  additionalProperties: false,
};
