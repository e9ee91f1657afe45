import { splitTemplate } from './expressions.ts';
import type { ExpressionTranslator } from './translate.ts';

const MARK = '\uE000n8n';

/**
 * A JSON body n8n keeps as text, perhaps with expressions inside (`={"id": "{{ $json.id }}",
 * "n": {{ $json.n }} }`), as our templated value: an expression standing for a whole JSON value
 * becomes a whole-string template (raw value), one inside a JSON string an interpolated part.
 * Text that is not JSON once its expressions are set aside stays a (templated) string.
 */
export function jsonBody(raw: unknown, tr: ExpressionTranslator): unknown {
  if (typeof raw !== 'string') return tr.value(raw);
  const expression = raw.startsWith('=');
  const body = expression ? raw.slice(1) : raw;
  const templates: string[] = [];
  let text = '';
  let inString = false;
  for (const part of splitTemplate(body)) {
    if (typeof part === 'string') {
      for (let i = 0; i < part.length; i++) {
        if (part[i] === '\\') i++;
        else if (part[i] === '"') inString = !inString;
      }
      text += part;
      continue;
    }
    const template = tr.value(`={{${part.expression}}}`) as string;
    templates.push(template);
    const marker = `${MARK}${templates.length - 1}${MARK}`;
    text += inString ? marker : JSON.stringify(marker);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return expression ? tr.value(raw) : raw;
  }
  return restore(parsed, templates);
}

function restore(value: unknown, templates: string[]): unknown {
  if (typeof value === 'string') {
    const whole = new RegExp(`^${MARK}(\\d+)${MARK}$`).exec(value);
    if (whole) return templates[Number(whole[1])];
    return value.replace(new RegExp(`${MARK}(\\d+)${MARK}`, 'g'), (_, i: string) => templates[Number(i)]);
  }
  if (Array.isArray(value)) return value.map((v) => restore(v, templates));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restore(v, templates)]));
  return value;
}
