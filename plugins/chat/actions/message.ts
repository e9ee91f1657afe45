import type { IncomingMessage } from 'node:http';
import type { Context } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { checkFormFields, MESSAGE_FIELDS, type MessageFields } from '../params.ts';
import { readChatForm, removeFiles, storeFiles } from '../form.ts';
import { relayRun } from '../relay.ts';
import { awaitRun, runStopped, settleFromRun } from '../runs.ts';
import { getMessage, type Caller } from '../store.ts';
import { takeTurn } from '../turn.ts';
import type { Turn } from '../user-message.ts';
import { messageView, REPLY_SCHEMA } from '../views.ts';
import type { ChatAction, ChatService } from '../service.ts';

/** Waits up to CHAT_REPLY_WAIT_SECONDS for the run, settles the reply when it stopped; 202 while it still runs. */
export async function replyOf(svc: ChatService, ctx: Context, who: Caller, turn: Turn) {
  const run = await awaitRun(svc.broker, who, turn.run_id, svc.env.CHAT_REPLY_WAIT_SECONDS);
  let message = (await getMessage(svc.sql, turn.assistant.id)) ?? turn.assistant;
  if (runStopped(run)) message = await settleFromRun(svc.broker, svc.sql, who, message);
  if (message.status === 'streaming') (ctx.meta as Record<string, unknown>).$statusCode = 202;
  return { conversation_id: turn.conversation.id, run_id: turn.run_id, user_message: messageView(turn.user), message: messageView(message) };
}

export const REPLY_RESPONSES = {
  200: { description: 'The reply, settled (complete, interrupted or failed; or parked on an approval or a question: see `message.pause`).', schema: REPLY_SCHEMA },
  202: { description: 'The run takes longer than CHAT_REPLY_WAIT_SECONDS: `message` is still streaming; the run goes on and the reply is stored when it ends.', schema: REPLY_SCHEMA },
};

/** `POST /api/v1/chat/message`: one message, one reply (waited for). */
export const message: ChatAction = {
  rest: 'POST /message',
  summary: 'Send a message and wait for the reply',
  description: 'Creates the conversation when none is given. Answers the settled assistant message, or 202 with the run id when the run takes longer than CHAT_REPLY_WAIT_SECONDS (30 s by default). While the conversation\'s run waits for an answer to a question, the message is that answer.',
  tags: ['chat'],
  params: MESSAGE_FIELDS,
  response: REPLY_RESPONSES,
  async handler(ctx: Context<MessageFields>) {
    const who = identityOf(ctx);
    const turn = await takeTurn(this, ctx, who, { ...ctx.params, files: [] });
    return replyOf(this, ctx, who, turn);
  },
};

const FRAMES = [
  '`message.start` {conversation_id, message_id, run_id}',
  '`text.delta` {text} (no id)',
  '`tool.call` {id, name, arguments}',
  '`tool.result` {id, name, ok, error?}',
  '`approval.required` {run_id, step_id, tool, reason, source: tool|workflow}',
  "`workflow.step` {step_id, type?, status, error?} (a run of the workspace's chat entrypoint)",
  '`question` {text}',
  '`message.end` {message_id, text, status, usage}',
  '`error` {status, code, title}',
].join(', ');

/** `POST /api/v1/chat/stream`: multipart message with files; the reply as server-sent events. */
export const stream: ChatAction = {
  rest: { method: 'POST', path: '/stream', passReqResToParams: true },
  multipart: true,
  summary: 'Send a message (with files) and stream the reply (SSE)',
  description:
    `multipart/form-data: the text fields below and up to 5 file parts named \`files\` (optional; each at most CHAT_FILE_MAX_BYTES, 413 above), given to the model with the message. The answer is text/event-stream with the frames ${FRAMES}. ` +
    'Durable frames carry `id:` = the run\'s event seq: after a dropped connection, GET /api/v1/chat/runs/{run_id}/events with `Last-Event-ID` sends only what came after. A client that disconnects stops the model stream; the partial answer is kept (status interrupted).',
  tags: ['chat'],
  params: {
    ...Object.fromEntries(Object.entries(MESSAGE_FIELDS).map(([k, v]) => [k, { ...v, optional: true, default: undefined }])),
    $req: { type: 'any', optional: true },
    $res: { type: 'any', optional: true },
  },
  response: { 200: { description: 'Server-sent events (frames in the description)', contentType: 'text/event-stream', schema: { type: 'string' } } },
  async handler(ctx: Context<Record<string, unknown> & { $req?: IncomingMessage }>) {
    const who = identityOf(ctx);
    const req = ctx.params.$req;
    if (!req) throw ERRORS.BAD_REQUEST('This route is served over HTTP only.');
    const inQuery = Object.keys(MESSAGE_FIELDS).find((k) => ctx.params[k] !== undefined);
    if (inQuery) {
      req.resume();
      throw ERRORS.VALIDATION_FAILED(`Send '${inQuery}' in the form body, not the query.`, [{ field: inQuery, message: `The '${inQuery}' field belongs in the multipart form body.`, type: 'unknownField' }]);
    }
    const form = await readChatForm(req, this.env.CHAT_FILE_MAX_BYTES);
    const fields = checkFormFields(form.fields);
    const objects = kernelOf(this.broker).objects;
    const files = await storeFiles(objects, who.entity_id, form.files);
    let turn: Turn;
    try {
      turn = await takeTurn(this, ctx, who, { ...fields, files });
    } catch (err) {
      await removeFiles(objects, files);
      throw err;
    }
    return relayRun(this, ctx, who, turn.assistant, turn.after, { interruptOnGone: true });
  },
};
