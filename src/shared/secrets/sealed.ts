import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { CairnError } from '../errors.js';
import type { InstallKey } from './install-key.js';

/**
 * Sealing and opening secrets with the install key: AES-256-GCM, a fresh 12-byte random IV per
 * value, a 16-byte tag. A sealed value is one ASCII string,
 *
 *     cairn:v1:<key id>:<base64 of IV ‖ tag ‖ ciphertext>
 *
 * so a reader knows the format version and which key sealed it (a value sealed under another key
 * is reported as such, not as corrupt). Every value is sealed for a `context` (say
 * `run-env:<runId>`, `provider-key:<user>:<vendor>`), bound as GCM associated data: a value
 * copied to another run or another purpose does not open.
 */

const PREFIX = 'cairn';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function aad(context: string): Buffer {
  return Buffer.from(`${PREFIX}:${VERSION}:${context}`, 'utf8');
}

/** Seals `plaintext` for `context`. */
export function sealSecret(key: InstallKey, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const blob = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  return `${PREFIX}:${VERSION}:${key.id}:${blob}`;
}

export function isSealedSecret(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${PREFIX}:`);
}

/** Opens a sealed value for `context`; throws SECRET_UNREADABLE saying why it cannot. */
export function openSecret(key: InstallKey, sealed: string, context: string): string {
  const parts = sealed.split(':');
  if (parts.length !== 4 || parts[0] !== PREFIX) {
    throw new CairnError('SECRET_UNREADABLE', 'The sealed value is not in a format Cairn knows');
  }
  const [, version, keyId, blob] = parts as [string, string, string, string];
  if (version !== VERSION) {
    throw new CairnError('SECRET_UNREADABLE', `The sealed value has format ${version}, which this version of Cairn cannot read (it reads ${VERSION})`);
  }
  if (keyId !== key.id) {
    throw new CairnError(
      'SECRET_UNREADABLE',
      `The sealed value was sealed with another install key (key id ${keyId}; this install's is ${key.id}): the key file or TOKEN_ENCRYPTION_KEY changed since`,
    );
  }
  const bytes = Buffer.from(blob, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new CairnError('SECRET_UNREADABLE', 'The sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad(context));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch (err) {
    throw new CairnError('SECRET_UNREADABLE', 'The sealed value does not open: it was altered, or sealed for something else', undefined, { cause: err });
  }
}
