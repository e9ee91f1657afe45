import { defineError } from '../../kernel/errors/define.ts';

/** The workflow package's own error codes (stable API: never reuse or rename one). */
export const WORKFLOWS_ERR = {
  DISABLED: defineError({ code: 'WORKFLOWS_ERR_DISABLED', status: 403, title: 'Workflows are turned off (FLOWS_AVAILABLE=false)' }),
  INVALID_DEFINITION: defineError({ code: 'WORKFLOWS_ERR_INVALID_DEFINITION', status: 422, title: 'The workflow definition is not valid' }),
  ILLEGAL_TRANSITION: defineError({ code: 'WORKFLOWS_ERR_ILLEGAL_TRANSITION', status: 409, title: 'The run cannot make that move from its current status' }),
  DECISION_REQUIRED: defineError({ code: 'WORKFLOWS_ERR_DECISION_REQUIRED', status: 422, title: 'An approval wait needs an explicit decision' }),
  NOT_RUN_OWNER: defineError({ code: 'WORKFLOWS_ERR_NOT_RUN_OWNER', status: 403, title: 'Only the run owner can decide an approval' }),
  RETRY_REFUSED: defineError({ code: 'WORKFLOWS_ERR_RETRY_REFUSED', status: 409, title: 'The run cannot be retried' }),
  UNRECONCILED_EFFECT: defineError({ code: 'WORKFLOWS_ERR_UNRECONCILED_EFFECT', status: 409, title: 'A step with an uncertain external effect must be reconciled first' }),
  UNKNOWN_NODE_TYPE: defineError({ code: 'WORKFLOWS_ERR_UNKNOWN_NODE_TYPE', status: 422, title: 'No such node type is loaded' }),
  NODE_FAILED: defineError({ code: 'WORKFLOWS_ERR_NODE_FAILED', status: 422, title: 'The node failed' }),
  BINDING_DISABLED: defineError({ code: 'WORKFLOWS_ERR_BINDING_DISABLED', status: 409, title: 'The binding is disabled' }),
  CHAT_ENTRYPOINT_TAKEN: defineError({ code: 'WORKFLOWS_ERR_CHAT_ENTRYPOINT_TAKEN', status: 409, title: 'The workspace already has a chat entrypoint' }),
  NOT_GRANT_OWNER: defineError({ code: 'WORKFLOWS_ERR_NOT_GRANT_OWNER', status: 403, title: 'Only the owner of an action grant can revoke it' }),
  IMPORT_UNREADABLE: defineError({ code: 'WORKFLOWS_ERR_IMPORT_UNREADABLE', status: 422, title: 'The import is not an export of the format named' }),
};
