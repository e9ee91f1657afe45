/** Collects positional bind values ($1, $2, ...) while a statement is assembled. */
export class BindList {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** `%`, `_` and `\` are wildcards to ILIKE; a search text means them literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
