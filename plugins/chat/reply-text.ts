/** Longest reply text taken from a run's output. */
const REPLY_MAX = 20_000;

/** Fields of an output object read as the reply, in this order. */
const TEXT_FIELDS = ['reply', 'text', 'message', 'answer', 'content'];

const cap = (text: string): string => (text.length > REPLY_MAX ? `${text.slice(0, REPLY_MAX - 1)}…` : text);

function textField(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const field of TEXT_FIELDS) if (typeof record[field] === 'string' && record[field]) return record[field] as string;
  return undefined;
}

/**
 * The chat reply of a workflow run that no agent step answered: its output as text. A string is
 * itself; an object's `reply`, `text`, `message`, `answer` or `content` (also inside a respond
 * step's `body`); anything else as a JSON block. Capped at 20,000 characters.
 */
export function replyTextOf(output: unknown): string {
  if (output === null || output === undefined) return '';
  if (typeof output === 'string') return cap(output);
  if (typeof output === 'number' || typeof output === 'boolean') return String(output);
  const body = (output as { body?: unknown }).body;
  const text = textField(output) ?? (typeof body === 'string' && body ? body : textField(body));
  if (text !== undefined) return cap(text);
  return cap(`\`\`\`json\n${JSON.stringify(output, null, 2)}\n\`\`\``);
}
