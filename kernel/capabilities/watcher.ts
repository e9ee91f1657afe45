import { existsSync } from 'node:fs';
import { relative, resolve, sep, join } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isCapabilityDir } from './discover.ts';

export interface WatchHandlers {
  changed(dir: string): void;
  removed(dir: string): void;
}

/**
 * Watches the package roots (resolving once the initial scan is done) and reports, per package folder, that it was added or changed
 * (debounced, so an editor's burst of writes or a copy of many files is one reload) or removed.
 */
export async function watchPackageRoots(roots: string[], handlers: WatchHandlers, debounceMs = 300): Promise<{ close(): Promise<void> }> {
  const absRoots = roots.map((r) => resolve(r)).filter((r) => existsSync(r));
  const timers = new Map<string, NodeJS.Timeout>();
  const known = new Set<string>();

  const packageDirOf = (path: string): string | undefined => {
    for (const root of absRoots) {
      const rel = relative(root, path);
      if (!rel || rel.startsWith('..')) continue;
      const parts = rel.split(sep);
      if (parts[0].startsWith('.')) return undefined;
      const depth = parts[0].startsWith('@') ? 2 : 1;
      if (parts.length < depth) return undefined;
      return join(root, ...parts.slice(0, depth));
    }
    return undefined;
  };

  const schedule = (path: string): void => {
    const dir = packageDirOf(path);
    if (!dir) return;
    if (/(^|[/\\])node_modules([/\\]|$)/.test(relative(dir, path))) return;
    clearTimeout(timers.get(dir));
    timers.set(
      dir,
      setTimeout(() => {
        timers.delete(dir);
        if (existsSync(dir) && isCapabilityDir(dir)) {
          known.add(dir);
          handlers.changed(dir);
        } else if (known.delete(dir) || !existsSync(dir)) {
          handlers.removed(dir);
        }
      }, debounceMs),
    );
  };

  const watcher: FSWatcher = watch(absRoots, {
    ignoreInitial: true,
    ignored: (path: string) => {
      const root = absRoots.find((r) => path === r || path.startsWith(r + sep));
      return !!root && /(^|[/\\])(node_modules|\.git)([/\\]|$)/.test(relative(root, path));
    },
    awaitWriteFinish: false,
  });
  watcher.on('all', (_event, path) => schedule(path));
  // events before the initial scan ends would be lost: the node is not ready until then
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      for (const t of timers.values()) clearTimeout(t);
      await watcher.close();
    },
  };
}
