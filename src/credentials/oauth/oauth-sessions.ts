import type { SubscriptionVendor } from '../../shared/providers/credential-vendors.js';

/**
 * Subscription logins in progress. They live in the API process's memory only: the PKCE
 * verifier and the device code never reach the database or a log, and a login lasts minutes, so
 * one that an API restart cuts short is simply started again.
 */

export type LoginStatus = 'pending' | 'connected' | 'error';

interface SessionBase {
  id: string;
  userId: string;
  vendor: SubscriptionVendor;
  /** ms since the epoch. */
  expiresAt: number;
  status: LoginStatus;
  detail?: string;
}

export interface ManualSession extends SessionBase {
  mode: 'manual';
  verifier: string;
  state: string;
  /** The pasted code is sent once: set when a poll brought one. */
  codeUsed: boolean;
}

export interface DeviceSession extends SessionBase {
  mode: 'device';
  deviceCode: string;
  intervalMs: number;
  /** No poll reaches the vendor before this moment (its interval, raised by `slow_down`). */
  nextPollAt: number;
  /** A poll of the vendor is under way: a second poll meanwhile answers pending without calling. */
  polling: boolean;
}

export type LoginSession = ManualSession | DeviceSession;

/** How long a finished or expired login is still answered before it is forgotten. */
const KEEP_AFTER_END_MS = 10 * 60_000;
/** Logins one user may have under way; starting one more drops the oldest. */
export const MAX_LOGINS_PER_USER = 10;

export class LoginSessions {
  private readonly sessions = new Map<string, LoginSession>();

  constructor(private readonly now: () => number) {}

  add(session: LoginSession): void {
    this.sweep();
    const mine = [...this.sessions.values()].filter((s) => s.userId === session.userId);
    for (const old of mine.slice(0, Math.max(0, mine.length - MAX_LOGINS_PER_USER + 1))) this.sessions.delete(old.id);
    this.sessions.set(session.id, session);
  }

  /** The user's own session; another user's id answers undefined, as an unknown one does. */
  get(id: string, userId: string): LoginSession | undefined {
    this.sweep();
    const session = this.sessions.get(id);
    return session?.userId === userId ? session : undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt + KEEP_AFTER_END_MS < now) this.sessions.delete(id);
  }
}
