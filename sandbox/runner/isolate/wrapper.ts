import { MAX_LOG_LINE_CHARS, MAX_LOG_LINES } from '../limits.ts';
import type { Dialect } from './dialects.ts';

/** The file name the snippet is compiled under: positions in errors are `code.js:<line>:<column>` of the user's code. */
export const CODE_FILE = 'code.js';
/** Globals the script's first line sets and the wrapper reads once and deletes: the snippet's function and `{input, max_output}` as JSON text. */
const FN_GLOBAL = '__wao_fn';
const RUN_GLOBAL = '__wao_run';

/**
 * The one script a run compiles and runs: its first line holds our wrapper (a function, not
 * yet called) and the run's data as a string literal, and opens the async function whose body
 * is the snippet, from line 2 on; after it, the wrapper is called and its promise is the
 * script's value. Compiled with lineOffset -1, a syntax or runtime error names the user's own
 * line. One compile and one run: each call into the isolate is a round trip between threads.
 */
export function runSource(code: string, dialect: Dialect, runJson: string): string {
  const header = `const __wao = ${wrapperSource(dialect).replace(/\n\s*/g, ' ')}; globalThis.${RUN_GLOBAL} = ${JSON.stringify(runJson)}; globalThis.${FN_GLOBAL} = async function (${dialect.parameters.join(', ')}) {`;
  return `${header}\n${code}\n};\n__wao();`;
}

/** The envelope the wrapper (and the container programs) answer, as JSON text (the host checks every field: the snippet could have forged it). */
export type Envelope =
  | { ok: true; result: unknown; logs: unknown }
  | { ok: false; kind: 'runtime' | 'not_json' | 'too_large' | 'syntax' | 'memory'; message?: unknown; line?: unknown; column?: unknown; size?: unknown; logs: unknown };

/**
 * Our own function, called after the snippet's function is defined: it takes the builtins it needs
 * before any user code runs, removes what a snippet has no use for, gives it a console that
 * only collects lines, calls it, and answers one JSON string. Nothing of the host is reachable
 * from inside: only strings cross the boundary.
 */
function wrapperSource(dialect: Dialect): string {
  return `(async () => {
  const g = globalThis, stringify = JSON.stringify, parse = JSON.parse, Str = String, ErrorCtor = Error;
  const run = parse(g.${RUN_GLOBAL}); delete g.${RUN_GLOBAL};
  const fn = g.${FN_GLOBAL}; delete g.${FN_GLOBAL};
  for (const name of ['WebAssembly', 'SharedArrayBuffer', 'Atomics']) delete g[name];
  const logs = [];
  const text = (a) => { if (typeof a === 'string') return a; try { const s = stringify(a); return s === undefined ? Str(a) : s; } catch { return Str(a); } };
  const log = (...args) => { if (logs.length < ${MAX_LOG_LINES}) logs.push(args.map(text).join(' ').slice(0, ${MAX_LOG_LINE_CHARS})); };
  const console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });
  g.console = console;
  const where = (e) => { const m = /${CODE_FILE.replace('.', '\\.')}:(\\d+):(\\d+)/.exec(Str(e && e.stack)); return m ? { line: +m[1], column: +m[2] } : {}; };
  let value;
  try {
    value = await fn(...(${dialect.bind})(run.input, console));
  } catch (e) {
    if (e instanceof RangeError && /allocation failed/i.test(e.message)) return stringify({ ok: false, kind: 'memory', logs });
    let message;
    try { message = e instanceof ErrorCtor ? e.name + ': ' + e.message : 'Uncaught ' + text(e); } catch { message = 'Uncaught exception'; }
    return stringify({ ok: false, kind: 'runtime', message: Str(message).slice(0, 2000), ...where(e), logs });
  }
  let out;
  try { out = stringify(value === undefined ? null : value); } catch (e) { return stringify({ ok: false, kind: 'not_json', message: Str(e && e.message).slice(0, 500), logs }); }
  if (typeof out !== 'string') return stringify({ ok: false, kind: 'not_json', message: 'the result is a ' + typeof value + ', not a JSON value', logs });
  if (out.length > run.max_output) return stringify({ ok: false, kind: 'too_large', size: out.length, logs });
  return '{"ok":true,"logs":' + stringify(logs) + ',"result":' + out + '}';
})`;
}
