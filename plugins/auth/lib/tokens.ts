import { createHash, randomBytes } from 'node:crypto';

/** A new bearer token: 32 random bytes, base64url (43 characters). Only its hash is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the auth_tokens table keeps of a token: sha256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
