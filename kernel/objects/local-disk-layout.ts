// On-disk layout of the local driver. The key `a/b/c.txt` lives in `<root>/a.d/b.d/`:
//   c.txt.m        its record (JSON sidecar): blob file name, size, content type, metadata, etag
//   c.txt.<id>.o   its content, written under a fresh name and never modified afterwards
//   c.txt.<id>.t   a record being written; renaming it to `c.txt.m` is the commit point
// The distinct suffixes keep folders, records and blobs from colliding, so `a` and
// `a/b` can both be keys, as on S3. A blob without a record (left by a crash) is
// never visible: readers only follow records.
import { randomUUID } from 'node:crypto';
import { open, readdir, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ERRORS } from '../errors/catalogue.ts';

const DIR_SUFFIX = '.d';
const RECORD_SUFFIX = '.m';
const BLOB_SUFFIX = '.o';
const TEMP_SUFFIX = '.t';
// 255-byte file names minus ".<32 hex id>.o"
const MAX_SEGMENT_BYTES = 220;

export interface ObjectRecord {
  blob: string;
  size: number;
  contentType: string;
  metadata: Record<string, string>;
  etag: string;
}

export interface ObjectLocation {
  /** Folder holding the record and blobs. */
  dir: string;
  /** Last key segment. */
  name: string;
  recordPath: string;
}

/** `key` must already be valid (see keys.ts). */
export function locateObject(root: string, key: string): ObjectLocation {
  const segments = key.split('/');
  for (const segment of segments) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw ERRORS.BAD_REQUEST(
        `Invalid object key ${JSON.stringify(key)}: a segment is longer than ${MAX_SEGMENT_BYTES} bytes, the local disk driver's limit`,
        { key },
      );
    }
  }
  const name = segments.pop() as string;
  const dir = join(root, ...segments.map((segment) => segment + DIR_SUFFIX));
  return { dir, name, recordPath: join(dir, name + RECORD_SUFFIX) };
}

export function newBlobName(name: string): string {
  return `${name}.${randomUUID().replaceAll('-', '')}${BLOB_SUFFIX}`;
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export async function readRecord(recordPath: string): Promise<ObjectRecord | null> {
  let text: string;
  try {
    text = await readFile(recordPath, 'utf8');
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
  try {
    return JSON.parse(text) as ObjectRecord;
  } catch (err) {
    throw new Error(`Corrupt object record ${recordPath}: ${(err as Error).message}`, { cause: err });
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the record under a temporary name, flushes it, then renames it into place. */
export async function commitRecord(location: ObjectLocation, record: ObjectRecord): Promise<void> {
  const tempPath = join(location.dir, `${location.name}.${randomUUID().replaceAll('-', '')}${TEMP_SUFFIX}`);
  const handle = await open(tempPath, 'wx');
  try {
    await handle.writeFile(JSON.stringify(record));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tempPath, location.recordPath);
  } catch (err) {
    await unlink(tempPath).catch(() => undefined);
    throw err;
  }
  await syncDir(location.dir);
}

export async function removeRecord(location: ObjectLocation): Promise<void> {
  await unlink(location.recordPath);
  await syncDir(location.dir);
}

export async function removeFileIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b)); // S3 lists in UTF-8 byte order
}

interface Entry {
  name: string;
  isDir: boolean;
  /** Orders a folder by the keys it holds (`name/...`) relative to sibling keys. */
  sortKey: string;
}

async function sortedEntries(dir: string, namePrefix: string): Promise<Entry[]> {
  let dirents;
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const entries: Entry[] = [];
  for (const dirent of dirents) {
    if (dirent.isDirectory() && dirent.name.endsWith(DIR_SUFFIX)) {
      const name = dirent.name.slice(0, -DIR_SUFFIX.length);
      if (name.startsWith(namePrefix)) entries.push({ name, isDir: true, sortKey: name + '/' });
    } else if (dirent.isFile() && dirent.name.endsWith(RECORD_SUFFIX)) {
      const name = dirent.name.slice(0, -RECORD_SUFFIX.length);
      if (name.startsWith(namePrefix)) entries.push({ name, isDir: false, sortKey: name });
    }
  }
  return entries.sort((a, b) => compareBytes(a.sortKey, b.sortKey));
}

async function* walk(dir: string, keyPrefix: string, namePrefix: string): AsyncGenerator<{ key: string; record: ObjectRecord }> {
  for (const entry of await sortedEntries(dir, namePrefix)) {
    if (entry.isDir) {
      yield* walk(join(dir, entry.name + DIR_SUFFIX), `${keyPrefix}${entry.name}/`, '');
    } else {
      const record = await readRecord(join(dir, entry.name + RECORD_SUFFIX));
      if (record) yield { key: keyPrefix + entry.name, record }; // null: deleted meanwhile
    }
  }
}

/** Every committed key starting with `prefix`, in UTF-8 byte order. */
export async function* walkKeys(root: string, prefix: string): AsyncGenerator<{ key: string; record: ObjectRecord }> {
  const folders = prefix.split('/');
  const namePrefix = folders.pop() as string;
  // No key has such a folder segment, and following one could leave the root.
  if (folders.some((segment) => segment === '' || segment === '.' || segment === '..')) return;
  const start = join(root, ...folders.map((segment) => segment + DIR_SUFFIX));
  yield* walk(start, folders.map((segment) => segment + '/').join(''), namePrefix);
}

/** Removes now-empty folders from `dir` up to (not including) `root`. */
export async function pruneEmptyFolders(root: string, dir: string): Promise<void> {
  let current = dir;
  while (current.length > root.length && current.startsWith(root + '/')) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone): stop climbing
    }
    current = dirname(current);
  }
}
