import type { GitHubWriteRecord } from '../github-writes.js';

/**
 * Whether a run may reserve a GitHub write (store/github-writes.ts), the same for every backend:
 * the key's own reservation is answered again (a retried node is the same write, never a second);
 * a new key is admitted while fewer than `cap` writes of its kind are reserved. The caller's key names one write
 * (the engine's: its kind and its node's path).
 */
export type GitHubWriteDecision = { outcome: 'existing'; write: GitHubWriteRecord } | { outcome: 'insert' } | { outcome: 'cap'; used: number };

export function decideGitHubWrite(existing: GitHubWriteRecord | undefined, usedOfKind: number, cap: number): GitHubWriteDecision {
  if (existing) return { outcome: 'existing', write: existing };
  if (usedOfKind >= cap) return { outcome: 'cap', used: usedOfKind };
  return { outcome: 'insert' };
}

