import { toolError } from '../../kernel/tools/errors.ts';
import { MAX_PATH_BYTES, MAX_PATH_CHARS, pathProblem } from '../../kernel/workspace-file-paths.ts';

export { MAX_PATH_BYTES, MAX_PATH_CHARS, pathProblem };

/** read and write move at most this much text (1 MiB) */
export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_LISTED = 1000;

const ROOT = 'workspace-files';
export function assertPath(path: string, field = 'path'): string {
  const problem = pathProblem(path);
  if (problem) throw toolError(`${field} '${path.slice(0, 80)}' is not valid: ${problem}.`, { tool: 'workspace_files' });
  return path;
}

/** The object-store prefix of one workspace's files: under the entity, then the workspace. */
export function workspacePrefix(entityId: string, workspaceId: string): string {
  return `${ROOT}/${encodeURIComponent(entityId)}/${encodeURIComponent(workspaceId)}/`;
}
