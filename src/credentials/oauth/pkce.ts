import { createHash, randomBytes } from 'node:crypto';

/** RFC 7636: a 43-character verifier from 32 random bytes and its S256 challenge. */
export function newPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An unguessable opaque id (session ids, `state`). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
