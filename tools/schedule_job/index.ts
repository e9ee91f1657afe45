import { defineTool } from '../../kernel/tools/define.ts';
import { callAction, requireUser } from '../../kernel/tools/calls.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';

const declaration: ToolDeclaration = {
  name: 'schedule_job',
  description:
    "Schedules a job that runs an agent (you, unless agent_id names another) on a prompt later or repeatedly, in this workspace. schedule: {kind: 'cron', cron: 5 fields 'minute hour day-of-month month day-of-week' (0 = Sunday), timezone: IANA zone} or {kind: 'every', every_seconds: at least 60} or {kind: 'at', at: ISO 8601 instant in the future}. deliverables: workspace file paths each run must leave behind (the run fails without them). Answers the job with its next_run_at.",
  category: 'automation',
  risk: 'medium',
  side_effect: 'non_idempotent',
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      payload_message: { type: 'string', minLength: 1, maxLength: 20000, description: 'What the agent is asked to do on each run.' },
      schedule: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: ['cron', 'every', 'at'] },
          cron: { type: 'string', maxLength: 200 },
          timezone: { type: 'string', maxLength: 64 },
          every_seconds: { type: 'integer' },
          at: { type: 'string', maxLength: 64 },
        },
        required: ['kind'],
        additionalProperties: false,
      },
      deliverables: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 512 } },
      delete_after_run: { type: 'boolean', description: "kind 'at' only: remove the job once its run is logged" },
      overlap: { type: 'string', enum: ['skip', 'queue'] },
      agent_id: { type: 'string', minLength: 1, maxLength: 64 },
    },
    required: ['name', 'payload_message', 'schedule'],
    additionalProperties: false,
  },
};

interface Args {
  name: string;
  payload_message: string;
  schedule: Record<string, unknown>;
  deliverables?: string[];
  delete_after_run?: boolean;
  overlap?: 'skip' | 'queue';
  agent_id?: string;
}

/** Creates the job as the run's user, through `jobs.createFromTool` (the same checks as POST /api/v1/jobs; a refusal comes back as a tool error naming the field). */
export default defineTool<Args>(declaration, async (args, inv) => {
  requireUser(inv);
  const workspaceId = inv.context.workspace_id;
  const agentId = args.agent_id ?? inv.context.agent_id;
  if (!workspaceId && !agentId) throw toolError('schedule_job works inside a workspace or for an agent, and this call has neither.', { tool: 'schedule_job' });
  return callAction(inv, 'jobs.createFromTool', {
    ...args,
    executor: 'agent',
    ...(workspaceId ? { workspace_id: workspaceId } : {}),
    ...(agentId ? { agent_id: agentId } : {}),
  });
});
