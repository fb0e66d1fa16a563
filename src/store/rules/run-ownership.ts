import { terminalRunStatuses, type RunStatus } from '../schemas/run.js';

/**
 * Who may hold a run, and what a holder may do with it: the engine's rules for a claim, a lease,
 * a take-over, a sleep, a transition and a resume, as pure decisions over the run's stored state.
 * Every backend reads that state inside the transaction that writes (under the run row's lock),
 * asks these rules, and stores what they decide; none decides on its own.
 */

/** The part of a stored run the ownership rules read. Times are ISO strings (comparable as text). */
export interface RunHold {
  status: RunStatus;
  owner_id: string | null;
  lease_expires_at: string | null;
  /** When a cancel (or abandon) of the run was first recorded, or null. */
  cancel_requested_at: string | null;
}

export const isTerminal = (status: RunStatus): boolean => terminalRunStatuses.includes(status);

/** The owner's lease still holds at `now` (a run with no lease time has none). */
export function leaseIsLive(run: Pick<RunHold, 'owner_id' | 'lease_expires_at'>, now: string): boolean {
  return run.owner_id !== null && run.lease_expires_at !== null && run.lease_expires_at >= now;
}

export interface AcquireAsk {
  ownerId: string;
  fromStatuses: readonly RunStatus[];
  status: RunStatus;
  previousOwner?: string | null;
  resume?: boolean;
  onlyUnowned?: boolean;
}

/** Why an acquire is refused, or undefined when it may go ahead. */
export type AcquireRefusal = 'no_such_run' | 'status' | 'held' | 'ended';

/**
 * Whether `ask` may take the run (RunStore.acquireRun): it is in one of `fromStatuses`, and it
 * is unowned, or (unless `onlyUnowned`: a sleeping run only) owned by the asker, by the named
 * previous owner, or by anyone whose lease ran out. A run that ended comes back to life only by a
 * resume.
 */
export function acquireRefusal(run: RunHold | undefined, ask: AcquireAsk, now: string): AcquireRefusal | undefined {
  if (!run) return 'no_such_run';
  if (!ask.fromStatuses.includes(run.status)) return 'status';
  if (isTerminal(run.status) && !isTerminal(ask.status) && !ask.resume) return 'ended';
  if (run.owner_id === null) return undefined;
  if (ask.onlyUnowned) return 'held';
  const mine = run.owner_id === ask.ownerId || run.owner_id === (ask.previousOwner ?? ask.ownerId);
  const lapsed = run.lease_expires_at !== null && run.lease_expires_at < now;
  return mine || lapsed ? undefined : 'held';
}

/** The stored fields an acquire sets, besides the metadata patch and the definition. */
export interface AcquiredHold {
  status: RunStatus;
  owner_id: string | null;
  lease_expires_at: string | null;
  /** Set on the first start only: an acquire keeps the earlier start time. */
  started_at_if_unset: string;
  last_activity_at: string;
  completed_at: string | null;
  /** A resume clears the run's error and any cancel request left from before it ended. */
  clear_error: boolean;
  cancel_requested_at: string | null;
}

/** What an allowed acquire writes. */
export function acquiredHold(run: RunHold, ask: AcquireAsk, now: string, leaseUntil: string): AcquiredHold {
  return {
    status: ask.status,
    owner_id: ask.ownerId,
    lease_expires_at: leaseUntil,
    started_at_if_unset: now,
    last_activity_at: now,
    completed_at: isTerminal(ask.status) ? now : null,
    clear_error: ask.resume === true,
    cancel_requested_at: ask.resume ? null : run.cancel_requested_at,
  };
}

/**
 * A resume that must wait for a place of its concurrency key (rules/run-concurrency.ts): the run
 * is made pending and nobody's, its error and cancel request cleared as by any resume; the
 * `start_run` job queued when a place frees starts it.
 */
export function waitingHold(hold: AcquiredHold): AcquiredHold {
  return { ...hold, status: 'pending', owner_id: null, lease_expires_at: null, completed_at: null };
}

/** Why a transition is refused, or undefined when it may go ahead. */
export type TransitionRefusal = 'not_owner' | 'ended';

/**
 * Whether `ownerId` may change the run (RunStore.transitionRun): only its owner, and never from
 * an end back to a status that is not one (that is a resume, which is an acquire).
 */
export function transitionRefusal(run: RunHold | undefined, ownerId: string, status: RunStatus | undefined): TransitionRefusal | undefined {
  if (!run || run.owner_id !== ownerId) return 'not_owner';
  if (status !== undefined && isTerminal(run.status) && !isTerminal(status)) return 'ended';
  return undefined;
}

/** The stored fields a transition sets (those it leaves alone are absent). */
export interface TransitionedHold {
  last_activity_at: string;
  status?: RunStatus;
  completed_at?: string;
  release: boolean;
}

/** What an allowed transition writes besides its error and metadata patch. */
export function transitionedHold(change: { status?: RunStatus; release?: boolean }, now: string): TransitionedHold {
  return {
    last_activity_at: now,
    ...(change.status !== undefined ? { status: change.status } : {}),
    ...(change.status !== undefined && isTerminal(change.status) ? { completed_at: now } : {}),
    release: change.release === true,
  };
}

/**
 * Whether the owner may let the run sleep (RunStore.sleepRun): it owns the run, the run is
 * running, and no cancel is on it (the cancel's job goes to the owner, who must still drive it).
 */
export function maySleep(run: RunHold | undefined, ownerId: string): boolean {
  return run !== undefined && run.owner_id === ownerId && run.status === 'running' && run.cancel_requested_at === null;
}

/** Whether `ownerId` may extend the run's lease: it owns the run, and the run has not ended. */
export function mayRenewLease(run: RunHold | undefined, ownerId: string): boolean {
  return run !== undefined && run.owner_id === ownerId && !isTerminal(run.status);
}

/** Whether `ownerId` may give the run up (shutdown): it owns it. Its status stays as it is. */
export function mayRelease(run: RunHold | undefined, ownerId: string): boolean {
  return run !== undefined && run.owner_id === ownerId;
}

/**
 * Whether the run is one `ownerId` may take over (RunStore.listRunsNotLeasedBy): not held by it
 * under a live lease, and not sleeping (unowned with a wake-up queued: its `wake_run` job
 * brings it back).
 */
export function isTakeOverCandidate(run: RunHold, ownerId: string, now: string, hasOpenWakeUp: boolean): boolean {
  if (run.owner_id === null) return !hasOpenWakeUp;
  return run.owner_id !== ownerId || (run.lease_expires_at !== null && run.lease_expires_at < now);
}

/**
 * The run's cancel request after a cancel (or abandon) asked at `at` is recorded: the first
 * request wins, and a run that ended records none. Only a resume (acquiredHold) clears it.
 */
export function cancelRequestAfter(run: RunHold, at: string): string | null {
  if (isTerminal(run.status)) return run.cancel_requested_at;
  return run.cancel_requested_at ?? at;
}

/** Whether the run may be deleted: it exists and is in one of `fromStatuses`. */
export function mayDelete(run: Pick<RunHold, 'status'> | undefined, fromStatuses: readonly RunStatus[]): boolean {
  return run !== undefined && fromStatuses.includes(run.status);
}
