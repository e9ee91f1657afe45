import { createHash } from 'node:crypto';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { bodyChunks } from './body.ts';
import { describeError } from './errors.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { assertValidKey, assertValidPrefix, normalizeContentType, normalizeMetadata } from './keys.ts';
import {
  commitRecord,
  locateObject,
  newBlobName,
  pruneEmptyFolders,
  readRecord,
  removeFileIfPresent,
  removeRecord,
  walkKeys,
  type ObjectLocation,
} from './local-disk-layout.ts';
import { runProbeRoundTrip } from './probe.ts';
import type { ListedObject, LocalDiskOptions, ObjectBody, ObjectInfo, ObjectStore, PutOptions, PutResult, StoredObject } from './types.ts';

// A reader follows a record to its blob; a writer that replaces the object in
// between deletes that blob, and the reader retries with the new record.
const READ_ATTEMPTS = 5;
// A delete of a sibling key may remove a folder that a put has just created.
const CREATE_ATTEMPTS = 5;

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path)).isDirectory();
}

/**
 * `mkdir -p` for the root. Node's `mkdir(..., { recursive: true })` spins forever
 * (100% CPU, never settles) on a path under /proc, where creating any child
 * answers ENOENT; this walk gives up after one retry instead.
 */
async function makeDirectoryTree(dir: string): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST' && (await isDirectory(dir))) return;
    const parent = dirname(dir);
    if (!isNotFound(err) || parent === dir) throw err;
    await makeDirectoryTree(parent);
  }
  try {
    await mkdir(dir);
  } catch (err) {
    if (!((err as NodeJS.ErrnoException).code === 'EEXIST' && (await isDirectory(dir)))) throw err;
  }
}

/** Objects as files under one directory; see local-disk-layout.ts for the layout. */
export class LocalDiskObjectStore implements ObjectStore {
  readonly driver = 'local' as const;
  readonly root: string;
  readonly #writers = new KeyedMutex();
  #rootReady: Promise<void> | null = null;

  constructor(opts: LocalDiskOptions) {
    if (!opts.dir) throw new Error('The local object store needs a directory (dir)');
    this.root = resolve(opts.dir);
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<PutResult> {
    assertValidKey(key);
    const contentType = normalizeContentType(opts.contentType);
    const metadata = normalizeMetadata(opts.metadata);
    const location = locateObject(this.root, key);
    await this.#ensureRoot();
    // The blob gets a fresh name, so uploads to one key run in parallel; only
    // the swap of records is serialised, so no replaced blob is left behind.
    const blob = newBlobName(location.name);
    const blobPath = join(location.dir, blob);
    const { size, etag } = await this.#writeBlob(location, blobPath, body);
    return this.#writers.run(key, async () => {
      const previous = await readRecord(location.recordPath);
      try {
        await commitRecord(location, { blob, size, contentType, metadata, etag });
      } catch (err) {
        await removeFileIfPresent(blobPath);
        throw err;
      }
      if (previous && previous.blob !== blob) await removeFileIfPresent(join(location.dir, previous.blob));
      return { key, size, etag };
    });
  }

  async get(key: string): Promise<StoredObject | null> {
    assertValidKey(key);
    const location = locateObject(this.root, key);
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const record = await readRecord(location.recordPath);
      if (!record) return null;
      let handle: FileHandle;
      try {
        handle = await open(join(location.dir, record.blob), 'r');
      } catch (err) {
        if (isNotFound(err)) continue; // replaced or deleted meanwhile
        throw err;
      }
      return { body: handle.createReadStream(), size: record.size, contentType: record.contentType, metadata: record.metadata };
    }
    throw new Error(`Object ${JSON.stringify(key)} changed ${READ_ATTEMPTS} times while being opened; try again`);
  }

  async getBuffer(key: string): Promise<Buffer | null> {
    const object = await this.get(key);
    return object ? buffer(object.body) : null;
  }

  async head(key: string): Promise<ObjectInfo | null> {
    assertValidKey(key);
    const record = await readRecord(locateObject(this.root, key).recordPath);
    return record ? { size: record.size, contentType: record.contentType, metadata: record.metadata } : null;
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    const location = locateObject(this.root, key);
    await this.#writers.run(key, async () => {
      const record = await readRecord(location.recordPath);
      if (!record) return;
      await removeRecord(location);
      await removeFileIfPresent(join(location.dir, record.blob));
      await pruneEmptyFolders(this.root, location.dir);
    });
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    assertValidPrefix(prefix);
    for await (const { key, record } of walkKeys(this.root, prefix)) yield { key, size: record.size };
  }

  async check(): Promise<void> {
    const where = `local directory ${JSON.stringify(this.root)}`;
    try {
      await this.#ensureRoot();
    } catch (err) {
      throw new Error(`Object store check failed for ${where}: ${describeError(err)}`, { cause: err });
    }
    await runProbeRoundTrip(this, where);
  }

  /** Nothing is held open between calls (read streams close themselves), so there is nothing to release. */
  async close(): Promise<void> {}

  async #ensureRoot(): Promise<void> {
    this.#rootReady ??= makeDirectoryTree(this.root).then(
      () => undefined,
      (err: unknown) => {
        this.#rootReady = null; // let a later call retry
        throw new Error(`Cannot create the object store directory ${JSON.stringify(this.root)}: ${describeError(err)}`, { cause: err });
      },
    );
    return this.#rootReady;
  }

  /** Streams `body` to a new file and flushes it; removes the file on any failure. */
  async #writeBlob(location: ObjectLocation, blobPath: string, body: ObjectBody): Promise<{ size: number; etag: string }> {
    const handle = await this.#createBlob(location, blobPath);
    const hash = createHash('md5');
    let size = 0;
    try {
      await handle.writeFile(
        (async function* counted() {
          for await (const chunk of bodyChunks(body)) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        })(),
      );
      await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await removeFileIfPresent(blobPath);
      throw err;
    }
    await handle.close();
    return { size, etag: hash.digest('hex') };
  }

  async #createBlob(location: ObjectLocation, blobPath: string): Promise<FileHandle> {
    for (let attempt = 1; ; attempt++) {
      await mkdir(location.dir, { recursive: true });
      try {
        return await open(blobPath, 'wx');
      } catch (err) {
        if (!isNotFound(err) || attempt >= CREATE_ATTEMPTS) throw err;
      }
    }
  }
}
