import type { IsolationEnvironment } from '../schemas/codebase.js';

/**
 * The lock on an isolation environment is a lease, like a run's: who may take it, and when an
 * environment counts as idle. Pure decisions a backend takes inside the transaction that writes.
 */

type Lock = Pick<IsolationEnvironment, 'locked_by_run' | 'lock_expires_at'>;

/** A run holds the environment under a lock that has not lapsed at `now`. */
export function isLockLive(env: Lock, now: string): boolean {
  return env.locked_by_run !== null && env.lock_expires_at !== null && env.lock_expires_at >= now;
}

/**
 * Whether `runId` may lock the environment: it is free, already this run's (its owner changed:
 * the run's own acquire decided that), or its lock lapsed.
 */
export function mayLock(env: Lock, runId: string, now: string): boolean {
  return env.locked_by_run === null || env.locked_by_run === runId || (env.lock_expires_at !== null && env.lock_expires_at < now);
}

/** Whether the environment may be removed as idle: no run holds it under a live lock. */
export function isIdle(env: Lock, now: string): boolean {
  return env.locked_by_run === null || (env.lock_expires_at !== null && env.lock_expires_at < now);
}

/** What the backend found for a run's isolation claim (CodebaseStore.claimRunIsolation). */
export interface IsolationClaimFacts {
  runId: string;
  now: string;
  /** The run's own active environment (a take-over or a retried start), if any. */
  existing: IsolationEnvironment | undefined;
  /** The codebase's active environment on the asked branch, if the claim names one. */
  onBranch: IsolationEnvironment | undefined;
  /** For a `checkout` claim: the codebase's active checkout uses. */
  checkoutUses: readonly IsolationEnvironment[];
}

export type IsolationClaimDecision =
  | { kind: 'lock_existing'; env: IsolationEnvironment }
  | { kind: 'create' }
  | { kind: 'branch_held'; env: IsolationEnvironment }
  | { kind: 'locked'; env: IsolationEnvironment };

/**
 * The run's own environment is locked again when it may be; else a new one is recorded, unless
 * another active environment has the branch or (a `checkout` use) another run holds the checkout
 * under a live lock.
 */
export function decideIsolationClaim(facts: IsolationClaimFacts): IsolationClaimDecision {
  const { existing, runId, now } = facts;
  if (existing) return mayLock(existing, runId, now) ? { kind: 'lock_existing', env: existing } : { kind: 'locked', env: existing };
  if (facts.onBranch) return { kind: 'branch_held', env: facts.onBranch };
  const busy = facts.checkoutUses.find((use) => use.locked_by_run !== runId && isLockLive(use, now));
  return busy ? { kind: 'locked', env: busy } : { kind: 'create' };
}
