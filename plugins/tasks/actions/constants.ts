import { taskConstants } from '../domain/constants.ts';
import { CONSTANTS_SCHEMA } from '../schemas.ts';
import type { TasksAction } from '../service.ts';

/** `GET /api/v1/tasks/constants`: the whole state machine, board columns and priorities. */
export const constants: TasksAction = {
  rest: 'GET /constants',
  summary: 'The task state machine, board columns and priorities',
  tags: ['tasks'],
  response: CONSTANTS_SCHEMA,
  handler: () => taskConstants(),
};
