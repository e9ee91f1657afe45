import { tasksService } from './tasks-service.ts';
import { taskRunsService } from './runs-service.ts';
import { taskCollectionsService } from './collections-service.ts';
import { publicTaskService } from './public/public-task-service.ts';

/**
 * The tasks package: tasks with their enforced state machine, board, comments, attachments,
 * audit history, runs, collections (categories, templates, SLA policies) and public review.
 * See README.md for routes, events and error codes.
 */
export default [tasksService, taskRunsService, taskCollectionsService, publicTaskService];
