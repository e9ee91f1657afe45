/**
 * The definition a model wrote, out of its reply: the last fenced ```json block if there is
 * one, else the first balanced top-level `{...}`. Undefined when neither parses as a JSON object.
 */
export function extractJsonObject(text: string): Record<string, unknown> | undefined {
  const fenced = [...text.matchAll(/```(?:json|JSON)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]);
  for (const candidate of [...fenced.reverse(), ...balancedObjects(text)]) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Substrings that start with `{` at depth 0 and end where their braces balance (strings respected). */
function* balancedObjects(text: string): Generator<string> {
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) yield text.slice(start, i + 1);
    }
  }
}
