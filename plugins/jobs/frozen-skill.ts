import type { ServiceBroker } from 'moleculer';
import { MODELS_CHAT_ACTION, type ChatResult } from '../../kernel/models-contract.ts';
import { asCreator } from './executor-job.ts';
import type { JobStore } from './store/jobs.ts';
import type { JobRow } from './store/types.ts';
import type { JobsService } from './service.ts';

export const FREEZE_JOB = 'job.freeze';

const SYSTEM = `You turn a person's request for a recurring automated job into an execution skill: precise
instructions an AI agent follows on every run without re-reading the request. Answer in Markdown with
the sections "Objective", "Steps" (numbered, concrete), "Done when" (checkable criteria) and "Report"
(what the final answer must contain). Do not invent facts, tools or data sources the request does
not mention. At most 600 words.`;

/** Puts the generation of a job's frozen execution skill on the control queue (background: the save does not wait). */
export async function requestFrozenSkill(svc: JobsService, row: Pick<JobRow, 'id' | 'version'>): Promise<void> {
  await svc.queue.enqueue('celery', { name: FREEZE_JOB, id: `${row.id}:v${row.version}` });
}

/**
 * Generates the skill with the entity's default model key, as the job's creator, and stores it
 * for the job version it was made from (an edit made meanwhile wins: its own request follows).
 * No key, or a provider failure: status `failed` with the reason, and runs use the prompt.
 */
export async function freezeSkill(broker: ServiceBroker, jobs: JobStore, queueId: string): Promise<void> {
  const [jobId, v] = queueId.split(':v');
  const version = Number(v);
  const row = await jobs.byId(jobId);
  if (!row || row.version !== version || !row.payload_message) return;
  try {
    const result = await broker.call<ChatResult, unknown>(MODELS_CHAT_ACTION, { system: SYSTEM, messages: [{ role: 'user', content: `Job "${row.name}":\n\n${row.payload_message}` }], max_tokens: 1500 }, asCreator(row));
    await jobs.setFrozenSkill(row.id, version, { text: result.text.trim().slice(0, 20_000) });
  } catch (err) {
    await jobs.setFrozenSkill(row.id, version, { error: (err as Error).message || 'the model call failed' });
  }
}
