import { defineError } from '../../kernel/errors/define.ts';

/** The chat package's own error codes (stable API: never reuse or rename one). */
export const CHAT_ERR = {
  BUSY: defineError({ code: 'CHAT_ERR_BUSY', status: 409, title: 'The agent is still answering in this conversation' }),
  APPROVAL_PENDING: defineError({ code: 'CHAT_ERR_APPROVAL_PENDING', status: 409, title: 'A tool call of this conversation waits for an approval' }),
  NO_PENDING_APPROVAL: defineError({ code: 'CHAT_ERR_NO_PENDING_APPROVAL', status: 409, title: 'Nothing in this conversation waits for an approval' }),
  STREAM_CUT: defineError({ code: 'CHAT_ERR_STREAM_CUT', status: 502, title: "The run's event stream was cut" }),
};
