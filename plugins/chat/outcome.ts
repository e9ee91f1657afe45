import type { ServiceBroker } from 'moleculer';
import type { Sequelize } from 'sequelize';
import { settleFromRun } from './runs.ts';
import { streamingOfRun } from './store.ts';

/** `agent.run.outcome` as nodes/agent emits it (the fields chat reads). */
export interface ChatOutcome {
  entity_id: string;
  run_id: string;
  owner_id: string | null;
  conversation_id: string | null;
  kind: string;
}

/**
 * A chat run's step ended or parked: its streaming assistant message is settled from the run's
 * events, unless a live stream or a waiting request already did. This is what settles the reply
 * of a client that went away.
 */
export async function settleOutcome(broker: ServiceBroker, db: Sequelize, o: ChatOutcome): Promise<void> {
  if (!o.conversation_id) return;
  const message = await streamingOfRun(db, o.run_id);
  if (!message || message.entity_id !== o.entity_id || message.conversation_id !== o.conversation_id) return;
  await settleFromRun(broker, db, { id: o.owner_id ?? 'system', entity_id: o.entity_id }, message);
}
