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

/** A hidden worker conversation's id, `web-worker-<ms>-<6 chars>` (a run dispatched from chat). */
export function newWorkerConversationId(now: number): string {
  return newConversationId(now).replace(/^web-/, 'web-worker-');
}

/** The hex key of a conversation row (what messages point at). */
export function newConversationRowId(): string {
  return randomBytes(16).toString('hex');
}

/** What a conversation id in a URL may hold: letters, digits, `_` and `-` (upstream's rule). */
export const conversationIdPattern = /^[\w-]+$/;

/**
 * The key of the dashboard stream (`GET /api/stream/__dashboard__`, every run's events), so never
 * a conversation's id: that conversation's own stream could not be followed.
 */
export const DASHBOARD_STREAM_KEY = '__dashboard__';

/** Whether an id is reserved, and so refused wherever a conversation id is given. */
export function isReservedConversationId(id: string): boolean {
  return id === DASHBOARD_STREAM_KEY;
}

/** The end of the refusal of a reserved id; the caller puts the field's name before it. */
export const reservedConversationIdText =
  `'${DASHBOARD_STREAM_KEY}' is reserved for the dashboard stream (GET /api/stream/${DASHBOARD_STREAM_KEY}); use another id`;
