import { createRequire } from 'node:module';
import type ValidatorClass from 'fastest-validator';
import { ERRORS } from '../../kernel/errors/catalogue.ts';

/** The fields of a chat message (JSON body, or the text fields of the multipart form). */
export const MESSAGE_FIELDS = {
  message: { type: 'string', min: 1, max: 100_000, pattern: '\\S', messages: { stringPattern: "The 'message' field must contain some text." }, description: 'What you say (1 to 100000 characters).' },
  workspace_context: { type: 'boolean', optional: true, default: false, description: "Add the workspace's name, description and operating model to the system prompt (needs workspace_id, or a conversation in a workspace)." },
  conversation_id: { type: 'uuid', optional: true, description: 'Continue this conversation; none starts a new one.' },
  agent_id: { type: 'uuid', optional: true, description: "The agent that answers (default: the conversation's, else the workspace's master agent, else a plain assistant with no tools)." },
  workspace_id: { type: 'uuid', optional: true, description: 'The workspace the conversation is in (its governance applies to tool calls).' },
} as const;

export interface MessageFields {
  message: string;
  workspace_context: boolean;
  conversation_id?: string;
  agent_id?: string;
  workspace_id?: string;
}

const Validator = createRequire(import.meta.url)('fastest-validator') as new (opts?: object) => InstanceType<typeof ValidatorClass.default>;

const check = new Validator({ useNewCustomCheckFunction: true }).compile({ $$strict: true, ...MESSAGE_FIELDS, workspace_context: { ...MESSAGE_FIELDS.workspace_context, convert: true } });

/** The multipart form's text fields checked like the JSON body (422 naming each bad field). */
export function checkFormFields(fields: Record<string, string>): MessageFields {
  const value: Record<string, unknown> = { ...fields };
  const result = check(value);
  if (result !== true) {
    const errors = (result as { field?: string; message?: string; type?: string }[]).map((e) => ({ field: String(e.field ?? ''), message: String(e.message ?? 'is invalid'), type: String(e.type ?? 'invalid') }));
    throw ERRORS.VALIDATION_FAILED('The form has invalid fields.', errors);
  }
  return value as unknown as MessageFields;
}
