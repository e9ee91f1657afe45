import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption of small secrets at rest (stored credentials: model provider keys,
 * channel tokens). AES-256-GCM with a random 96-bit IV per value; the key is derived with
 * HKDF-SHA256 from the deployment's secret (`secret-key.ts`) and a purpose, so each kind of
 * credential has its own key. A sealed value is one ASCII string:
 *
 *   v1.<key id>.<iv>.<ciphertext>.<tag>        (base64url parts)
 *
 * The key id (a hash of the derived key, not secret) tells "sealed with another key" apart from
 * "altered". `context` (for example the row's entity and id) is bound as additional
 * authenticated data: a sealed value copied to another row does not open there.
 */

const VERSION = 'v1';
const SALT = 'wao.sealed-box.v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SealedBoxFailure = 'malformed' | 'other_key' | 'tampered';

/** A value that cannot be opened; the message never contains the plaintext or the key. */
export class SealedBoxError extends Error {
  readonly reason: SealedBoxFailure;
  constructor(reason: SealedBoxFailure, message: string) {
    super(message);
    this.name = 'SealedBoxError';
    this.reason = reason;
  }
}

export interface SealedBox {
  /** names the derived key (first 12 hex digits of an HMAC of it); safe to log */
  readonly keyId: string;
  seal(plaintext: string, context?: string): string;
  /** the plaintext, or a SealedBoxError */
  open(sealed: string, context?: string): string;
}

/** A box for one purpose (e.g. `model-api-keys`) under the deployment's secret. */
export function sealedBox(secret: Buffer | string, purpose: string): SealedBox {
  const material = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (material.length === 0) throw new Error('sealedBox: the secret is empty');
  if (!purpose) throw new Error('sealedBox: a purpose is required');
  const key = Buffer.from(hkdfSync('sha256', material, SALT, purpose, 32));
  const keyId = createHmac('sha256', key).update('key-id').digest('hex').slice(0, 12);
  const aad = (context: string) => Buffer.from(`${VERSION}.${keyId}.${context}`, 'utf8');
  return {
    keyId,
    seal(plaintext, context = '') {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, keyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed, context = '') {
      const parts = typeof sealed === 'string' ? sealed.split('.') : [];
      if (parts.length !== 5 || parts[0] !== VERSION) throw new SealedBoxError('malformed', 'The stored value is not a sealed value of this format.');
      const [, sealedKeyId, ivText, ciphertextText, tagText] = parts;
      if (sealedKeyId !== keyId) {
        throw new SealedBoxError('other_key', `The value was sealed with another key (key id ${sealedKeyId}; this node's is ${keyId}): SECRET_KEY differs from the one in use when it was stored.`);
      }
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealedBoxError('malformed', 'The stored value is not a sealed value of this format.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SealedBoxError('tampered', 'The stored value failed authentication: it was altered, or sealed for another record.');
      }
    },
  };
}
