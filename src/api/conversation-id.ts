import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A conversation id in the upstream web client's form, `web-<ms>-<6 chars>`, for runs started
 * without one. Clients match on the shape, so keep it.
 */
export function newConversationId(now: number): string {
  const suffix = [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return `web-${now}-${suffix}`;
}
