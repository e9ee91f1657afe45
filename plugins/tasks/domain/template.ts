/**
 * `{{variable}}` rendering of task templates (no I/O). A name is letters, digits, `_`, `.`
 * or `-`, starting with a letter or `_`; spaces inside the braces are allowed. Values are
 * inserted as given (the text is Markdown); `\{{` writes literal braces.
 */

const PLACEHOLDER = /(\\?)\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}/g;

/** The variables a text uses, each once, in order of first use. */
export function placeholdersOf(...texts: (string | null | undefined)[]): string[] {
  const names: string[] = [];
  for (const text of texts) {
    for (const match of (text ?? '').matchAll(PLACEHOLDER)) {
      if (match[1] === '\\') continue;
      if (!names.includes(match[2])) names.push(match[2]);
    }
  }
  return names;
}

export type Variables = Record<string, string | number | boolean>;

/** The variables a set of texts needs that `variables` does not give. */
export function missingVariables(variables: Variables, ...texts: (string | null | undefined)[]): string[] {
  return placeholdersOf(...texts).filter((name) => !Object.hasOwn(variables, name));
}

/** Renders one text; throws if a variable is missing (call missingVariables first for a full list). */
export function render(text: string, variables: Variables): string {
  return text.replace(PLACEHOLDER, (whole, escape: string, name: string) => {
    if (escape === '\\') return whole.slice(1);
    if (!Object.hasOwn(variables, name)) throw new Error(`template variable '${name}' has no value`);
    return String(variables[name]);
  });
}
