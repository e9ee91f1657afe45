import type { ChatUsage } from '../../../kernel/models-contract.ts';

/** Small readers for provider JSON, which is never trusted to have the documented shape. */

export function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

/** `base` + `/` + `path`, whatever slashes the configured base URL ends with. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

/**
 * Takes the token counts a provider reported, under its own names for them (OpenAI's
 * prompt_tokens / completion_tokens, Anthropic's input_tokens / output_tokens); a count that is
 * missing or not a number keeps what the stream reported before.
 */
export function mergeUsage(state: { usage: ChatUsage }, reported: unknown, names: { input: string; output: string }): void {
  const usage = objectOf(reported);
  state.usage = { input_tokens: numberOr(usage[names.input], state.usage.input_tokens), output_tokens: numberOr(usage[names.output], state.usage.output_tokens) };
}
