import Docker from 'dockerode';
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * Images for the container driver's tests, built here because nothing can be pulled: a root
 * filesystem assembled from this machine's files (busybox-static for the shell, the system
 * python3 with its shared libraries and standard library), packed with tar and imported.
 */
export const SHELL_IMAGE = 'wao-sandbox-test-shell:1';
export const PYTHON_IMAGE = 'wao-sandbox-test-python:1';

function tarInto(docker: Docker, root: string, image: string): Promise<void> {
  const [repo, tag] = image.split(':');
  const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    docker.importImage(tar.stdout as never, { repo, tag }, (err: unknown, stream?: NodeJS.ReadableStream) => {
      if (err || !stream) return reject(err ?? new Error('docker import gave no stream'));
      docker.modem.followProgress(stream, (e: unknown) => (e ? reject(e) : resolve()));
    });
  });
}

function base(root: string): void {
  for (const d of ['bin', 'tmp', 'etc', 'usr/bin', 'usr/lib']) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'etc', 'passwd'), 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n');
}

/** The shared libraries a binary loads (ldd), copied at their own paths. */
function copyLibraries(binary: string, root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ldd = spawn('ldd', [binary]);
    let out = '';
    ldd.stdout.on('data', (c) => (out += c));
    ldd.on('error', reject);
    ldd.on('close', () => {
      for (const m of out.matchAll(/(\/[^\s]+\.so[^\s]*)/g)) {
        const lib = m[1];
        if (!existsSync(lib)) continue;
        mkdirSync(join(root, dirname(lib)), { recursive: true });
        copyFileSync(realpathSync(lib), join(root, lib));
      }
      resolve();
    });
  });
}

export async function buildTestImages(docker: Docker): Promise<void> {
  const have = new Set((await docker.listImages()).flatMap((i) => i.RepoTags ?? []));
  const work = mkdtempSync(join(tmpdir(), 'wao-images-'));
  try {
    if (!have.has(SHELL_IMAGE)) {
      const root = join(work, 'shell');
      base(root);
      copyFileSync('/usr/bin/busybox', join(root, 'bin', 'busybox'));
      for (const a of ['sh', 'cat', 'echo', 'head', 'yes', 'dd', 'sleep', 'tr']) symlinkSync('busybox', join(root, 'bin', a));
      await tarInto(docker, root, SHELL_IMAGE);
    }
    if (!have.has(PYTHON_IMAGE)) {
      const root = join(work, 'python');
      base(root);
      const python = realpathSync('/usr/bin/python3');
      copyFileSync(python, join(root, 'usr', 'bin', basename(python)));
      symlinkSync(basename(python), join(root, 'usr', 'bin', 'python3'));
      await copyLibraries(python, root);
      const stdlib = `/usr/lib/${basename(python)}`;
      const skip = new Set(['test', 'idlelib', 'tkinter', 'ensurepip', 'lib2to3', 'pydoc_data', '__pycache__', 'site-packages', 'dist-packages']);
      cpSync(stdlib, join(root, stdlib), { recursive: true, filter: (src) => !skip.has(basename(src)) });
      await tarInto(docker, root, PYTHON_IMAGE);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
