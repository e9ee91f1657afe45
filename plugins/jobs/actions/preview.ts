import type { Context } from 'moleculer';
import { nextFires } from '../../../kernel/schedule/schedule.ts';
import { SCHEDULE_RULE } from '../fields.ts';
import { invalid, type FieldProblem } from '../errors.ts';
import { scheduleValues, type ScheduleInput } from '../input.ts';
import { scheduleOf } from '../store/types.ts';
import type { JobsAction } from '../service.ts';

const DEFAULT_COUNT = 5;

/** `POST /api/v1/jobs/preview`: the next fires of a schedule not saved yet (a form checks its expression as it is typed). */
export const preview: JobsAction = {
  rest: 'POST /preview',
  // it reads nothing stored and writes nothing: whoever may read jobs may check an expression
  role: 'viewer',
  summary: 'Preview the next fire times of a schedule',
  description:
    'Checks `schedule` exactly as a job\'s save does (422 naming `schedule.cron`, `schedule.timezone`, `schedule.every_seconds` or `schedule.at`) and answers its next `count` (1-50, default 5) fire times after now. Nothing is stored. An `every` schedule counts from now, as a new job would.',
  tags: ['jobs'],
  params: { schedule: SCHEDULE_RULE, count: { type: 'number', integer: true, min: 1, max: 50, convert: true, optional: true } },
  response: {
    type: 'object',
    properties: {
      next_fire_times: { type: 'array', items: { type: 'string', format: 'date-time' } },
      timezone: { type: 'string', description: 'The zone the schedule is evaluated in.' },
    },
    required: ['next_fire_times', 'timezone'],
  },
  async handler(ctx: Context<{ schedule: ScheduleInput; count?: number }>) {
    const now = this.now();
    const problems: FieldProblem[] = [];
    const values = scheduleValues(ctx.params.schedule, undefined, now, problems);
    if (problems.length) throw invalid(problems);
    const fires = nextFires(scheduleOf(values), now, ctx.params.count ?? DEFAULT_COUNT);
    return { next_fire_times: fires.map((d) => d.toISOString()), timezone: values.timezone };
  },
};
