import type { Context } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { defineTool, type ToolInvocation } from '../../kernel/tools/define.ts';
import { requireUser, requireWorkspace } from '../../kernel/tools/calls.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';
import { WORKSPACE_DELETED_EVENT, type WorkspaceDeletedPayload } from '../../kernel/workspace-contracts.ts';
import { assertPath, MAX_FILE_BYTES, MAX_LISTED, MAX_PATH_CHARS, workspacePrefix } from './paths.ts';

const PATH = { type: 'string', minLength: 1, maxLength: MAX_PATH_CHARS };
const requires = (op: string, ...names: string[]) => ({ if: { properties: { op: { const: op } } }, then: { required: names } });
const TEXT = 'text/plain; charset=utf-8';

const declaration: ToolDeclaration = {
  name: 'workspace_files',
  description:
    "The workspace's own files (UTF-8 text). op list (path: a folder, default all files), read (path), stat (path: whether the file exists, its size and when it was last written), write (path, content: replaces the whole file), delete (path). Paths are relative, '/'-separated, without '.' or '..' segments, at most 512 characters. read and write handle at most 1 MiB of text.",
  category: 'files',
  risk: 'medium',
  side_effect: 'idempotent',
  parameters: {
    type: 'object',
    properties: {
      op: { type: 'string', enum: ['list', 'read', 'stat', 'write', 'delete'] },
      path: PATH,
      content: { type: 'string', maxLength: MAX_FILE_BYTES, description: 'write: the whole text of the file' },
    },
    required: ['op'],
    additionalProperties: false,
    allOf: [requires('read', 'path'), requires('stat', 'path'), requires('write', 'path', 'content'), requires('delete', 'path')],
  },
};

interface Args {
  op: 'list' | 'read' | 'stat' | 'write' | 'delete';
  path?: string;
  content?: string;
}

/** The object metadata key holding when the file was last written (ISO 8601, set by `write`). */
const WRITTEN_AT = 'written-at';

const utf8 = new TextDecoder('utf-8', { fatal: true });

async function list(inv: ToolInvocation, prefix: string, folder: string | undefined) {
  const objects = kernelOf(inv.service.broker).objects;
  const under = folder ? `${prefix}${assertPath(folder)}/` : prefix;
  const items: { path: string; size: number }[] = [];
  let truncated = false;
  for await (const o of objects.list(under)) {
    if (items.length === MAX_LISTED) {
      truncated = true;
      break;
    }
    items.push({ path: o.key.slice(prefix.length), size: o.size });
  }
  items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { items, truncated };
}

async function read(inv: ToolInvocation, prefix: string, path: string) {
  const objects = kernelOf(inv.service.broker).objects;
  const info = await objects.head(prefix + path);
  if (!info) throw toolError(`No file '${path}' in this workspace.`, { tool: 'workspace_files' });
  if (info.size > MAX_FILE_BYTES) throw toolError(`'${path}' is ${info.size} bytes; read handles at most ${MAX_FILE_BYTES} bytes (1 MiB).`, { tool: 'workspace_files' });
  const bytes = await objects.getBuffer(prefix + path);
  if (!bytes) throw toolError(`No file '${path}' in this workspace.`, { tool: 'workspace_files' });
  if (bytes.length > MAX_FILE_BYTES) throw toolError(`'${path}' is larger than ${MAX_FILE_BYTES} bytes (1 MiB); read handles at most that.`, { tool: 'workspace_files' });
  let content: string;
  try {
    content = utf8.decode(bytes);
  } catch {
    throw toolError(`'${path}' is not UTF-8 text; this tool reads text files only.`, { tool: 'workspace_files' });
  }
  return { path, size: bytes.length, content };
}

/** Whether a file exists, its size and when `write` last wrote it (null for a file stored before that was recorded). */
async function stat(inv: ToolInvocation, prefix: string, path: string) {
  const info = await kernelOf(inv.service.broker).objects.head(prefix + path);
  if (!info) return { path, exists: false, size: null, modified_at: null };
  const at = info.metadata[WRITTEN_AT];
  return { path, exists: true, size: info.size, modified_at: at && !Number.isNaN(Date.parse(at)) ? new Date(at).toISOString() : null };
}

export default {
  ...defineTool<Args>(declaration, async (args, inv) => {
    const user = requireUser(inv);
    const ws = await requireWorkspace(inv);
    const prefix = workspacePrefix(user.entity_id, ws.id);
    if (args.op === 'list') return list(inv, prefix, args.path);
    const path = assertPath(args.path!);
    if (args.op === 'read') return read(inv, prefix, path);
    if (args.op === 'stat') return stat(inv, prefix, path);
    if (ws.archived) throw toolError(`The workspace '${ws.name}' is archived and read-only.`, { tool: 'workspace_files' });
    const objects = kernelOf(inv.service.broker).objects;
    if (args.op === 'write') {
      const bytes = Buffer.from(args.content!, 'utf8');
      if (bytes.length > MAX_FILE_BYTES) throw toolError(`content is ${bytes.length} bytes in UTF-8; write takes at most ${MAX_FILE_BYTES} bytes (1 MiB).`, { tool: 'workspace_files' });
      await objects.put(prefix + path, bytes, { contentType: TEXT, metadata: { [WRITTEN_AT]: new Date().toISOString() } });
      return { path, size: bytes.length };
    }
    const existed = (await objects.head(prefix + path)) !== null;
    await objects.delete(prefix + path);
    return { path, deleted: existed };
  }),
  events: {
    // the workspace is gone for good: so are its files
    async [WORKSPACE_DELETED_EVENT](this: { broker: Context['broker'] }, ctx: Context<WorkspaceDeletedPayload>) {
      const { entity_id, workspace_id } = ctx.params ?? {};
      if (typeof entity_id !== 'string' || !entity_id || typeof workspace_id !== 'string' || !workspace_id) return;
      const objects = kernelOf(this.broker).objects;
      const prefix = workspacePrefix(entity_id, workspace_id);
      const keys: string[] = [];
      for await (const o of objects.list(prefix)) keys.push(o.key);
      for (const key of keys) await objects.delete(key);
    },
  },
};
