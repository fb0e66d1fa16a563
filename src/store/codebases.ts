import type {
  ClaimRunIsolation,
  ClaimRunIsolationResult,
  Codebase,
  EnvScan,
  IsolationEnvironment,
  NewCodebase,
  NewIsolationEnvironment,
} from './schemas/codebase.js';

export type {
  ClaimRunIsolation,
  ClaimRunIsolationResult,
  Codebase,
  EnvScan,
  IsolationEnvironment,
  NewCodebase,
  NewIsolationEnvironment,
} from './schemas/codebase.js';

/** Registered repositories and folders, and the isolation environments (worktrees) made from them. */
export interface CodebaseStore {
  /**
   * Inserts the codebase unless one with its id exists; either way answers the stored row and
   * whether this call created it. Consent to env keys always starts withheld.
   */
  registerCodebase(codebase: NewCodebase): Promise<{ codebase: Codebase; created: boolean }>;
  getCodebase(id: string): Promise<Codebase | undefined>;
  /** Sorted by id. */
  listCodebases(): Promise<Codebase[]>;
  /** Records a grant or revoke of env-key consent with the scan it was decided on; undefined if unknown. */
  setCodebaseEnvConsent(id: string, allow: boolean, scan: EnvScan): Promise<Codebase | undefined>;
  /** Removes the codebase and its isolation-environment rows in one transaction; answers the removed row. */
  deleteCodebase(id: string): Promise<Codebase | undefined>;
  /** Records a new active environment; at most one active per (codebase, workflow_type, workflow_id). */
  createIsolationEnvironment(env: NewIsolationEnvironment): Promise<IsolationEnvironment>;
  /** Oldest first. */
  listIsolationEnvironments(codebaseId: string): Promise<IsolationEnvironment[]>;

  // ── run isolation and its locks (a lock is a lease, like a run's) ─────────────────────
  /**
   * In one transaction: finds the run's active environment (a take-over or a retried start) and
   * takes its lock, or records `env` with the lock held, unless another active environment of
   * the codebase has the branch or (for a `checkout` use) another run holds the checkout under a
   * live lock; when claimed, sets the run's working_path to the environment's path. Throws the
   * fence's error (store/rules/write-fence.ts: RUN_INVALID_STATE, `fenced`) when `ownerId` does
   * not own the run, read under the run's row lock in the claiming transaction: a supervisor
   * paused past its lease takes no lock for a run another took over.
   */
  claimRunIsolation(input: ClaimRunIsolation): Promise<ClaimRunIsolationResult>;
  /** Extends the locks `ownerId` holds for the named runs (with their run leases). Returns how many. */
  renewIsolationLocks(ownerId: string, runIds: readonly string[], leaseMs: number): Promise<number>;
  /**
   * Releases every lock the run holds: a worktree stays active and unlocked, a use of the
   * codebase checkout is removed. Also done by a terminal transitionRun, in its transaction
   * (fenced as it is). With a store opened for a supervisor (its `writer`), only while that
   * supervisor owns the run; else refused with the fence's error, and no lock is released.
   */
  releaseIsolationLocks(runId: string): Promise<void>;
  /** Removes an environment row (a reservation whose worktree could not be made). */
  removeIsolationEnvironment(id: string): Promise<void>;
  /**
   * Removes the codebase's environment `id` unless a run holds it under a live lock, in one
   * transaction (so no run claims it meanwhile); answers what it found.
   */
  removeIdleIsolationEnvironment(codebaseId: string, id: string): Promise<IdleEnvironmentRemoval>;
}

/** What removing an idle environment found: removed, held by a run, or no such environment of the codebase. */
export type IdleEnvironmentRemoval =
  | { kind: 'removed'; env: IsolationEnvironment }
  | { kind: 'locked'; env: IsolationEnvironment }
  | { kind: 'not_found' };
