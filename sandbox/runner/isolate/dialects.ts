import type { SandboxDialect } from '../../../kernel/sandbox-contract.ts';

/**
 * How a snippet sees its input, per dialect: the parameter names of the async function the
 * code is the body of, and the JavaScript source (run inside the isolate, before the code) of a
 * function `(input, console) => [arguments]` that builds them. An n8n dialect adds `$json`,
 * `$input` and `$()` here, built from the same input; nothing else changes.
 */
export interface Dialect {
  parameters: readonly string[];
  bind: string;
}

export const DIALECTS: Record<SandboxDialect, Dialect> = {
  plain: { parameters: ['input', 'console'], bind: '(input, console) => [input, console]' },
};
