import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard). The parameters are a deliberate choice, measured
 * by bench/auth-login.ts: N=2^15, r=8, p=1 needs 32 MiB per hash (128·N·r bytes), which makes
 * guessing on GPUs costly, at roughly 85 ms of one core per hash. The parameters and the salt
 * are stored with each hash (`scrypt$N$r$p$salt$hash`), so raising them later only means
 * changing SCRYPT_PARAMS: older hashes still verify and are rehashed at the next login.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;

/** Password rules (documented in plugins/auth/README.md): 12 to 256 characters, nothing else. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PREFIX = 'scrypt';
/** Largest parameters we accept from a stored hash, so a tampered row cannot exhaust memory. */
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;

/**
 * scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise),
 * shared with file system and DNS work. A login burst is queued here instead of taking every
 * pool thread, so at least two stay free for the rest of the process.
 */
const HASH_CONCURRENCY = Math.max(1, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 2);
let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASH_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else running--;
  }
}

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 2 * 128 * params.N * params.r * params.p + 1024 * 1024 };
  return withHashSlot(
    () => new Promise<Buffer>((resolve, reject) => scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, SCRYPT_PARAMS, KEY_LENGTH);
  const { N, r, p } = SCRYPT_PARAMS;
  return [PREFIX, N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const key = Buffer.from(parts[5], 'base64url');
  const valid = [N, r, p].every((n) => Number.isInteger(n) && n > 0) && N >= 2 && (N & (N - 1)) === 0 && 128 * N * r * p <= MAX_MEMORY_BYTES;
  if (!valid || salt.length === 0 || key.length === 0) return null;
  return { N, r, p, salt, key };
}

/** True when the password matches the stored hash; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed, parsed.key.length);
  return timingSafeEqual(candidate, parsed.key);
}

/** True when the stored hash was made with other parameters than today's (rehash it at login). */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  return !parsed || parsed.N !== SCRYPT_PARAMS.N || parsed.r !== SCRYPT_PARAMS.r || parsed.p !== SCRYPT_PARAMS.p || parsed.key.length !== KEY_LENGTH;
}

/** A strong random password (24 characters of base64url, 144 bits) for the first owner. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
