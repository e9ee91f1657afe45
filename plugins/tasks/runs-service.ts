import type { ServiceSchema } from 'moleculer';
import { retry, hitlResponse, approval, resumeReview } from './actions/runs.ts';
import { runSetStatus, runRecord, runRaiseRequest, runPauseForReview, runAddOutputFiles } from './actions/runtime.ts';

/**
 * Service `task-runs`: agent runs on tasks. Its HTTP routes live under /api/v1/tasks (retry,
 * hitl-response, approval, resume-delivery-review); its internal actions are what the agent
 * runtime calls to report (status, execution record, requests, delivery review, output files).
 */
export const taskRunsService: ServiceSchema = {
  name: 'task-runs',
  settings: { rest: '/tasks' },
  actions: {
    retry,
    hitlResponse,
    approval,
    resumeReview,
    setStatus: runSetStatus,
    record: runRecord,
    raiseRequest: runRaiseRequest,
    pauseForReview: runPauseForReview,
    addOutputFiles: runAddOutputFiles,
  },
} as ServiceSchema;
