import { listExecutors } from '../../../kernel/executors/registry.ts';
import type { JobsAction } from '../service.ts';

const LINKS = { type: 'array', items: { type: 'string', enum: ['workspace_id', 'conversation_id', 'agent_id', 'goal_id'] } };

/** `GET /api/v1/jobs/executors`: what a job may name as `executor` right now (a hot-loaded executor package is listed at once). */
export const executors: JobsAction = {
  rest: 'GET /executors',
  summary: 'List the job executors loaded now',
  description: 'Read from the service registry on each call: an executor package loaded a moment ago is listed, an unloaded one is gone. `needs_prompt`: a job needs `payload_message`; `requires` / `requires_one`: context links it needs; `config`: the JSON schema of its `config` (absent: none taken).',
  tags: ['jobs'],
  response: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            queue: { type: 'string', enum: ['work', 'celery'] },
            needs_prompt: { type: 'boolean' },
            requires: LINKS,
            requires_one: LINKS,
            config: { type: 'object' },
          },
          required: ['name', 'description', 'queue', 'needs_prompt', 'requires', 'requires_one'],
        },
      },
    },
    required: ['items'],
  },
  handler() {
    const items = [...listExecutors(this.broker).values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((e) => ({ name: e.name, description: e.description, queue: e.queue, needs_prompt: e.needs_prompt, requires: e.requires ?? [], requires_one: e.requires_one ?? [], ...(e.config ? { config: e.config } : {}) }));
    return { items };
  },
};
