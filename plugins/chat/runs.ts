import type { Readable } from 'node:stream';
import type { ServiceBroker } from 'moleculer';
import type { PooledSql } from '../../kernel/db/pooled-sql.ts';
import { readNdjsonStream } from '../../kernel/ndjson-stream.ts';
import { WORKFLOWS_INTERRUPT_EVENT } from '../../kernel/nodes/durable.ts';
import { RunSegment, type RunLine } from './frames.ts';
import { settleMessage, type Caller, type MessageRow, type Settlement } from './store.ts';
import { replyTextOf } from './reply-text.ts';

/** How long a settling reader follows a run that has said it is ending (its last events are being committed). */
const SETTLE_FOLLOW_MS = 30_000;

export const asCaller = (who: Caller) => ({ meta: { user: { id: who.id, entity_id: who.entity_id, role: who.role ?? 'member' } } });

export interface RunSummary {
  id: string;
  status: string;
  seq: number;
  pause: Record<string, unknown> | null;
  owner_id?: string | null;
  output?: unknown;
}

const STOPPED = new Set(['completed', 'failed', 'cancelled', 'paused']);

export const runStopped = (run: RunSummary): boolean => STOPPED.has(run.status);

/** The run as it stands after waiting up to `seconds` for it to finish or pause (`workflows.awaitRun`). */
export function awaitRun(broker: ServiceBroker, who: Caller, runId: string, seconds: number): Promise<RunSummary> {
  return broker.call<RunSummary, unknown>('workflows.awaitRun', { run_id: runId, seconds }, { ...asCaller(who), timeout: (seconds + 15) * 1000 });
}

/** A run's events after `after` (replayed, then live) until it finishes or pauses; `close()` stops early. */
export async function runLines(broker: ServiceBroker, who: Caller, runId: string, after: number): Promise<{ lines: AsyncGenerator<RunLine>; close(): void }> {
  const stream = await broker.call<Readable, unknown>('workflows.runEventStream', { run_id: runId, after, end_on_pause: true, local_objects: true }, { ...asCaller(who), timeout: 0 });
  async function* lines(): AsyncGenerator<RunLine> {
    for await (const line of readNdjsonStream<RunLine>(stream, 'The run event stream was cut.')) {
      if (line.type === 'done') return;
      if (line.type === 'error' && 'code' in line) throw Object.assign(new Error(line.message), { type: line.code });
      yield line as RunLine;
    }
  }
  return { lines: lines(), close: () => stream.destroy() };
}

/** Asks the node driving the run to stop its model stream now, keeping the partial answer. */
export function interruptRun(broker: ServiceBroker, runId: string, reason: string): void {
  void Promise.resolve(broker.broadcast(WORKFLOWS_INTERRUPT_EVENT, { run_id: runId, reason })).catch(() => undefined);
}

/**
 * Settles a streaming assistant message from its run's durable events (the segment after its
 * `start_seq`, to the run's end or pause). Answers the message as stored afterwards; unchanged
 * when the run does not end within the bound (another writer settles it later).
 */
export async function settleFromRun(broker: ServiceBroker, sql: PooledSql, who: Caller, message: MessageRow): Promise<MessageRow> {
  if (message.status !== 'streaming' || !message.run_id) return message;
  const segment = new RunSegment(message.run_id, message.workflow_id ?? null);
  const { lines, close } = await runLines(broker, who, message.run_id, message.start_seq ?? 0);
  const timer = setTimeout(close, SETTLE_FOLLOW_MS);
  try {
    for await (const line of lines) {
      segment.add(line);
      // the stream itself ends at the pause the run still waits in; an older one is followed by its resume
      if (segment.finished) break;
    }
  } catch {
    // a cut stream settles nothing; the next reader tries again
  } finally {
    clearTimeout(timer);
    close();
  }
  const settlement = await settlementOf(broker, who, message.run_id, segment);
  if (!settlement) return message;
  return (await settleMessage(sql, message.id, settlement)) ?? message;
}

/** What a segment's message settles to; a workflow run whose steps said nothing answers with its output. */
export async function settlementOf(broker: ServiceBroker, who: Caller, runId: string, segment: RunSegment): Promise<Settlement | undefined> {
  const settlement = segment.settlement();
  if (!settlement || !segment.wantsRunOutput) return settlement;
  const run = await awaitRun(broker, who, runId, 0).catch(() => undefined);
  return { ...settlement, content: replyTextOf(run?.output) };
}
