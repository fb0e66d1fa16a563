import type { Codebase, EnvScan, IsolationEnvironment, NewCodebase, NewIsolationEnvironment } from './schemas/codebase.js';

export type { Codebase, EnvScan, IsolationEnvironment, NewCodebase, NewIsolationEnvironment } from './schemas/codebase.js';

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
}
