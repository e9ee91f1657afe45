import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The global the library script sets and the n8n dialect's binding reads once and deletes. */
export const LUXON_GLOBAL = '__wao_luxon';

let source: string | undefined;

/**
 * Luxon inside the isolate, for the n8n dialect (`DateTime`, `$now`, `$today`): the library's
 * own self-contained browser build (no require, no I/O; it needs only ECMAScript and Intl, which
 * every isolate has), read once by this process from the installed `luxon` package and compiled
 * into each isolate as a plain script that hands its exports to one deletable global. The
 * snippet never sees the global: the dialect's binding takes it before the snippet runs.
 */
export function luxonSource(): string {
  if (source === undefined) {
    const require = createRequire(import.meta.url);
    const text = readFileSync(join(dirname(require.resolve('luxon/package.json')), 'build/global/luxon.min.js'), 'utf8');
    source = `globalThis.${LUXON_GLOBAL} = (function () {\n${text}\nreturn luxon;\n})();`;
  }
  return source;
}
