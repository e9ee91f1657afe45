import type { ServiceSchema } from 'moleculer';
import { constants } from './actions/constants.ts';
import { list } from './actions/list.ts';
import { create } from './actions/create.ts';
import { get } from './actions/get.ts';
import { update } from './actions/update.ts';
import { remove } from './actions/remove.ts';
import { move } from './actions/move.ts';
import { history } from './actions/history.ts';
import { board } from './actions/board.ts';
import { getBoardPreferences, putBoardPreferences } from './actions/board-preferences.ts';
import { workspaceDashboard, onWorkspaceDeleted } from './actions/workspace-hooks.ts';
import { listLogs, addLog } from './actions/logs.ts';
import { listAttachments, uploadAttachment, downloadAttachment } from './actions/attachments.ts';
import { mintPublicCode, listPublicCodes, revokePublicCode } from './actions/public-codes.ts';
import { importTasks } from './actions/import.ts';

/** Service `tasks`: routes under /api/v1/tasks for tasks themselves. */
export const tasksService: ServiceSchema = {
  name: 'tasks',
  actions: {
    constants,
    list,
    create,
    get,
    update,
    remove,
    move,
    history,
    board,
    getBoardPreferences,
    putBoardPreferences,
    listLogs,
    addLog,
    listAttachments,
    uploadAttachment,
    downloadAttachment,
    importTasks,
    mintPublicCode,
    listPublicCodes,
    revokePublicCode,
    workspaceDashboard,
  },
  events: {
    'workspace.deleted': onWorkspaceDeleted,
  },
} as ServiceSchema;
