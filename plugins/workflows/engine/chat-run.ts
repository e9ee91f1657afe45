import type { ServiceBroker } from 'moleculer';
import { WORKFLOWS_CHAT_RUN_STOPPED_EVENT } from '../../../kernel/nodes/durable.ts';
import type { RunRow } from '../store/run-types.ts';

/**
 * A run started from a chat entrypoint finished or paused: the conversation that started it
 * settles its reply (plugins/chat), whether or not a client still follows the run. Best effort:
 * a lost event leaves the reply to the next reader.
 */
export function announceChatRunStopped(broker: ServiceBroker, run: RunRow, finish: { status: string; pause?: { step_id?: string } | null }): void {
  const trigger = (run.trigger ?? {}) as { conversation_id?: unknown };
  const conversationId = typeof trigger.conversation_id === 'string' ? trigger.conversation_id : null;
  const payload = { entity_id: run.entity_id, run_id: run.id, owner_id: run.owner_id, conversation_id: conversationId, kind: 'workflow', status: finish.status, paused_at: finish.pause?.step_id ?? null };
  void Promise.resolve(broker.emit(WORKFLOWS_CHAT_RUN_STOPPED_EVENT, payload)).catch(() => undefined);
}
