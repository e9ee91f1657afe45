import type { Sequelize } from 'sequelize';
import { settleFromRun } from './runs.ts';
import type { ChatService } from './service.ts';
import { leaveToRelay } from './relay.ts';
import { insertMessage, lastOfRun, streamingOfRun, takePending, type MessageRow } from './store.ts';

/** `agent.run.outcome` as nodes/agent emits it (the fields chat reads). */
export interface ChatOutcome {
  entity_id: string;
  run_id: string;
  owner_id: string | null;
  conversation_id: string | null;
  kind: string;
  /** a workflow run's: how it stopped, and the step a paused one waits on */
  status?: string;
  paused_at?: string | null;
}

/**
 * A chat run's step ended or parked: its streaming assistant message is settled from the run's
 * events, unless a live stream or a waiting request already did, or a live stream on this node
 * will (relay.ts leaveToRelay). This is what settles the reply of a client that went away.
 */
export async function settleOutcome(svc: Pick<ChatService, 'broker' | 'db' | 'sql'>, o: ChatOutcome): Promise<void> {
  if (!o.conversation_id) return;
  const who = { id: o.owner_id ?? 'system', entity_id: o.entity_id };
  const message = (await streamingOfRun(svc.sql, o.run_id)) ?? (o.kind === 'workflow' ? await continuedElsewhere(svc.db, o) : undefined);
  if (!message || message.entity_id !== o.entity_id || message.conversation_id !== o.conversation_id) return;
  // a live stream on this node settles it at its end (or when its client leaves first)
  if (leaveToRelay(message.id)) return;
  await settleFromRun(svc.broker, svc.sql, who, message);
}

/**
 * A chat entrypoint's run that parked, then went on without the chat deciding (its approval
 * given on the run's own route): the conversation stops waiting on it and gets a message for
 * the rest of the run, read from the parked segment's start (its resume begins a new segment).
 */
async function continuedElsewhere(db: Sequelize, o: ChatOutcome): Promise<MessageRow | undefined> {
  const last = await lastOfRun(db, o.run_id);
  if (!last?.pause || last.entity_id !== o.entity_id || last.conversation_id !== o.conversation_id) return undefined;
  // the pause this message settled to is the one the run stopped at: nothing went on
  if (o.status === 'paused' && o.paused_at === last.pause.step_id) return undefined;
  return db.transaction(async (transaction) => {
    if (last.waits_on_run && !(await takePending(db, last.conversation_id, o.run_id, last.pause!.step_id, transaction))) return undefined;
    return insertMessage(db, { entity_id: last.entity_id, conversation_id: last.conversation_id, user_id: null, role: 'assistant', content: '', run_id: o.run_id, workflow_id: last.workflow_id, start_seq: last.start_seq, status: 'streaming' }, transaction);
  });
}
