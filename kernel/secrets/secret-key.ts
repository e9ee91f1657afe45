import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The file under DATA_DIR that holds the generated secret when SECRET_KEY is empty. */
export const SECRET_KEY_FILE = 'secret.key';

export interface SecretKey {
  /** the secret material every sealed box of this deployment derives its keys from */
  material: Buffer;
  /** `env`: SECRET_KEY; `file`: read from DATA_DIR; `generated`: created now in DATA_DIR */
  source: 'env' | 'file' | 'generated';
  /** the file, when the secret lives in one */
  path?: string;
}

/**
 * The deployment's secret for encrypting stored credentials: SECRET_KEY when set; otherwise 32
 * random bytes generated once into `DATA_DIR/secret.key` (hex, mode 0600) and read again on
 * every later start. The file's text and a SECRET_KEY of the same text give the same key, so a
 * single node's generated secret can be copied into SECRET_KEY when the deployment grows to
 * several nodes (which must all share one secret). An existing but unreadable or empty file is
 * an error, never replaced: a new secret would orphan every value sealed with the old one.
 */
export function loadSecretKey(env: { SECRET_KEY: string; DATA_DIR: string }): SecretKey {
  const configured = env.SECRET_KEY.trim();
  if (configured) return { material: Buffer.from(configured, 'utf8'), source: 'env' };
  const dir = resolve(env.DATA_DIR);
  const path = join(dir, SECRET_KEY_FILE);
  const existing = readSecretFile(path);
  if (existing) return { material: existing, source: 'file', path };
  mkdirSync(dir, { recursive: true });
  // written whole to a private temp file, then linked into place: a process starting at the
  // same time either wins the link or reads the winner's complete file
  const temp = join(dir, `.${SECRET_KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  let source: SecretKey['source'] = 'generated';
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    source = 'file';
  } finally {
    unlinkSync(temp);
  }
  const material = readSecretFile(path);
  if (!material) throw new Error(`${path} is empty; restore it, or set SECRET_KEY`);
  return { material, source, path };
}

function readSecretFile(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Cannot read the secret key file ${path}: ${(err as Error).message}`, { cause: err });
  }
  const value = text.trim();
  if (!value) throw new Error(`The secret key file ${path} is empty; restore it from a backup, or set SECRET_KEY to the secret in use`);
  return Buffer.from(value, 'utf8');
}
