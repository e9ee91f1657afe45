import type { ServiceBroker } from 'moleculer';
import type { ExecuteAnswer } from '../../kernel/jobs-contract.ts';
import { asCreator } from './executor-job.ts';
import type { JobRow, RunRow } from './store/types.ts';

/**
 * The file-deliverable contract, for every executor: a run its executor calls succeeded
 * succeeds only when each named file exists in the job's workspace afterwards and was written
 * since the run started (a file left by an earlier run does not count). Each path is looked up
 * on its own (`workspace_files` op `stat`); a lookup that keeps failing fails the run with that
 * reason rather than counting the file as missing.
 */

const STAT = 'tool.workspace_files.execute';
const ATTEMPTS = 3;

interface Stat {
  exists: boolean;
  modified_at: string | null;
}

type Failed = ExecuteAnswer & { status: 'failed' };

async function statOnce(broker: ServiceBroker, job: JobRow, path: string): Promise<Stat> {
  return broker.call<Stat, unknown>(STAT, { arguments: { op: 'stat', path }, context: { entity_id: job.entity_id, user_id: job.created_by, workspace_id: job.workspace_id } }, asCreator(job));
}

async function statWithRetry(broker: ServiceBroker, job: JobRow, path: string): Promise<Stat | Error> {
  let last: Error = new Error('no attempt made');
  for (let i = 0; i < ATTEMPTS; i++) {
    try {
      return await statOnce(broker, job, path);
    } catch (err) {
      last = err as Error;
    }
  }
  return last;
}

/** Where the deliverables of a run its executor answered `succeeded` leave it: null when all are there and fresh, else the failure. */
export async function deliverablesFailure(broker: ServiceBroker, job: JobRow, run: Pick<RunRow, 'started_at'>): Promise<Failed | null> {
  const paths: string[] = job.deliverables ?? [];
  if (!paths.length) return null;
  const since = run.started_at ? new Date(run.started_at).getTime() : 0;
  const missing: string[] = [];
  const stale: string[] = [];
  for (const path of paths) {
    const found = await statWithRetry(broker, job, path);
    if (found instanceof Error) {
      return { status: 'failed', error: { code: 'DELIVERABLE_CHECK_FAILED', message: `Could not check the deliverable '${path}' (${ATTEMPTS} attempts): ${found.message}`.slice(0, 2000) } };
    }
    if (!found.exists) missing.push(path);
    else if (!found.modified_at || Date.parse(found.modified_at) < since) stale.push(path);
  }
  if (missing.length) return { status: 'failed', error: { code: 'DELIVERABLE_MISSING', message: `The run finished, but these files are not in the workspace: ${missing.join(', ')}.${stale.length ? ` Not written during this run: ${stale.join(', ')}.` : ''}` } };
  if (stale.length) return { status: 'failed', error: { code: 'DELIVERABLE_STALE', message: `The run finished, but these files were not written during it (they are left from before ${new Date(since).toISOString()}): ${stale.join(', ')}.` } };
  return null;
}
