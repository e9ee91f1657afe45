import type { SandboxDialect } from '../../../kernel/sandbox-contract.ts';
import { luxonSource } from './luxon.ts';
import { N8N_BIND, N8N_PARAMETERS } from './n8n-dialect.ts';

/**
 * How a snippet sees its input, per dialect: the parameter names of the async function the
 * code is the body of, and the JavaScript source (run inside the isolate, before the code) of a
 * function `(input, console) => [arguments]` that builds them. An n8n dialect adds `$json`,
 * `$input` and `$()` here, built from the same input (n8n-dialect.ts); nothing else changes.
 * `prelude`: a library's script run in the run's context before the snippet's (compiled once
 * per isolate), whose exports the binding takes.
 */

export interface Dialect {
  parameters: readonly string[];
  bind: string;
  prelude?: () => string;
}

export const DIALECTS: Record<SandboxDialect, Dialect> = {
  plain: { parameters: ['input', 'console'], bind: '(input, console) => [input, console]' },
  n8n: { parameters: N8N_PARAMETERS, bind: N8N_BIND, prelude: luxonSource },
};
