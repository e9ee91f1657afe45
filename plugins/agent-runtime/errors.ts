import { defineError } from '../../kernel/errors/define.ts';

/** The agent runtime's own error codes (stable: never reuse or rename one; documented in docs/errors.md). */
export const AGENT_RUNTIME_ERR = {
  GENERATION_INVALID: defineError({ code: 'AGENTS_ERR_GENERATION_INVALID', status: 502, title: 'The model did not produce a valid agent, even after a repair turn' }),
};
