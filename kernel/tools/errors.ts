import { defineError } from '../errors/define.ts';

/** One problem of a tool call's arguments, named like the gateway's 422 `errors` entries. */
export interface ArgumentProblem {
  field: string;
  message: string;
  type: string;
}

/**
 * The codes every tool shares (documented in docs/errors.md). A tool's own failure that the
 * model should see and may correct is TOOLS_ERR_FAILED with a message written for the model.
 */
export const TOOLS_ERR = {
  INVALID_ARGUMENTS: defineError<{ tool: string; errors: ArgumentProblem[] }>({ code: 'TOOLS_ERR_INVALID_ARGUMENTS', status: 422, title: 'The tool arguments do not match its parameters' }),
  FAILED: defineError<{ tool?: string; cause?: { code: string; status: number } }>({ code: 'TOOLS_ERR_FAILED', status: 422, title: 'The tool could not do what was asked' }),
  CONTEXT: defineError<{ tool: string }>({ code: 'TOOLS_ERR_CONTEXT', status: 403, title: 'The tool call context does not match the caller' }),
} as const;

/** A failure the model should see (TOOLS_ERR_FAILED, 422): `message` is shown to it as the tool's answer. */
export function toolError(message: string, data: { tool?: string; cause?: { code: string; status: number } } = {}) {
  return TOOLS_ERR.FAILED(message, data);
}
