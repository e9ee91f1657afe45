import type { Constants } from '../src/pages/board/moves';
import constants from './fixtures/task-constants.json';

/**
 * GET /api/v1/tasks/constants as the server answers it (test/web-app.test.ts checks this copy
 * against the tasks package's own table, so it cannot drift).
 */
export const CONSTANTS = constants as unknown as Constants;
