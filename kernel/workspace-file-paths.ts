/** The rules of a workspace file path (the workspace_files tool, job deliverables): one declaration for both. */
export const MAX_PATH_CHARS = 512;
export const MAX_PATH_BYTES = 768;

/** control characters (C0, DEL, C1), and the line and paragraph separators */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Why `path` is not a file path this tool accepts, or undefined. */
export function pathProblem(path: string): string | undefined {
  if (!path.length) return 'it is empty';
  if (path.length > MAX_PATH_CHARS) return `it is longer than ${MAX_PATH_CHARS} characters`;
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `it is longer than ${MAX_PATH_BYTES} bytes in UTF-8`;
  if (UNPRINTABLE.test(path)) return 'it contains a control character';
  if (path.includes('\\')) return 'it contains a backslash (use /)';
  if (path.startsWith('/')) return 'it is absolute (paths are relative to the workspace)';
  for (const segment of path.split('/')) {
    if (segment === '..' || segment === '.') return `it contains a '${segment}' segment`;
    if (segment === '') return "it contains an empty segment ('//' or a trailing '/')";
    if (segment.trim() !== segment) return 'a segment starts or ends with a space';
  }
  return undefined;
}

