import { defineExecutor } from '../../kernel/executors/define.ts';
import { agentTaskOutcome, startAgentTask } from '../../kernel/executors/agent-task.ts';

export default defineExecutor(
  {
    name: 'agent',
    description: 'Creates a task from the prompt and runs the agent on it (the job agent, else the workspace master agent).',
    queue: 'work',
    needs_prompt: true,
    requires_one: ['agent_id', 'workspace_id'],
    restartable: false,
    frozen_skill: true,
  },
  {
    execute: (ctx, job, run) => startAgentTask(ctx, job, run, job.frozen_skill ?? job.payload_message ?? ''),
    poll: async (ctx, job, run) => (await agentTaskOutcome(ctx, job, run)).answer,
  },
);
