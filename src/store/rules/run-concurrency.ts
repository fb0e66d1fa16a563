import type { RunConcurrency } from '../../shared/run-concurrency.js';
import type { Run } from '../schemas/run.js';
import { CairnError } from '../../shared/errors.js';

/**
 * A workflow's concurrency policy, as the store applies it: the engine's rule, pure, which both
 * backends apply inside the transaction that creates a run (its key's open runs read there, under
 * a lock on the key), and again inside the transaction that ends one of them. Two starts at the
 * same moment are decided one after the other, so they never both get the last place.
 * Property-tested in test/store/rules/run-concurrency.test.ts.
 */

/** A run admitted (created, to start or waiting), or refused by its workflow's concurrency policy. */
export type AdmittedRun = { run: Run; cancelled: string[] } | { refused: string; holders: string[] };

/** An open run (pending, running or paused) of the key, oldest first, as the transaction read it. */
export interface KeyRun {
  id: string;
  /** It waits for a place (metadata.concurrency.waiting_for is set): it holds none. */
  waiting: boolean;
  /** Its own policy's limit (the workflow file may have changed since it was admitted). */
  limit: number;
}

export type Admission =
  /** A place is free: the run is created with its `start_run` job. */
  | { outcome: 'start' }
  /** The run is created pending without a `start_run` job; `cancel` are to be cancelled (cancel_other). */
  | { outcome: 'wait'; waitingFor: string[]; position: number; cancel: string[] }
  /** Nothing is created. */
  | { outcome: 'refuse'; holders: string[]; reason: string };

function holdersOf(open: readonly KeyRun[]): string[] {
  return open.filter((run) => !run.waiting).map((run) => run.id);
}

/** What asks for the place: a new run's start, or a resume of a run that ended (its refusal says which to do again). */
export type PlaceRequest = 'start' | 'resume';

/** What a new run of the policy (or a resume of one that ended) finds among the key's open runs. */
export function decideAdmission(
  policy: Pick<RunConcurrency, 'key' | 'limit' | 'on_overlap'>,
  workflowName: string,
  open: readonly KeyRun[],
  request: PlaceRequest = 'start',
): Admission {
  const holders = holdersOf(open);
  const waiters = open.filter((run) => run.waiting).map((run) => run.id);
  // Runs that wait keep their order: a new one never starts ahead of them.
  if (holders.length < policy.limit && waiters.length === 0) return { outcome: 'start' };
  switch (policy.on_overlap) {
    case 'queue':
      return { outcome: 'wait', waitingFor: holders, position: waiters.length + 1, cancel: [] };
    case 'refuse':
      return { outcome: 'refuse', holders, reason: refusalText(policy, workflowName, holders, waiters.length, request) };
    case 'cancel_other': {
      // The oldest holders, enough to free one place, and every older waiter: the newest start wins.
      const oldest = holders.slice(0, Math.max(1, holders.length - policy.limit + 1));
      return { outcome: 'wait', waitingFor: oldest, position: 1, cancel: [...waiters, ...oldest] };
    }
  }
}

function refusalText(policy: Pick<RunConcurrency, 'key' | 'limit'>, workflowName: string, holders: readonly string[], waiting: number, request: PlaceRequest): string {
  const places = policy.limit === 1 ? 'its one place' : `all ${policy.limit} places`;
  const queued = waiting > 0 ? ` (and ${waiting} run${waiting === 1 ? '' : 's'} wait${waiting === 1 ? 's' : ''} for a place)` : '';
  return (
    `Workflow '${workflowName}' allows ${policy.limit} run${policy.limit === 1 ? '' : 's'} at a time for concurrency key ` +
    `${JSON.stringify(policy.key)} (on_overlap: refuse), and ${holders.join(', ') || 'other runs'} hold${holders.length === 1 ? 's' : ''} ` +
    `${places}${queued}; ${request} it again once ${holders.length === 1 ? 'that run has' : 'one of them has'} ended, or cancel ${holders.length === 1 ? 'it' : 'one'}`
  );
}

export interface WaitingMoves {
  /** Waiting runs that take a free place now: their `start_run` job is queued, waiting_for cleared. */
  start: string[];
  /** The runs still waiting, with whom they wait for now and their place in the queue. */
  still: { id: string; waitingFor: string[]; position: number }[];
}

/**
 * After one of the key's runs ended (in the transaction that ended it): which waiting runs start,
 * oldest first, each while fewer runs than its own limit hold a place.
 */
export function moveWaiting(open: readonly KeyRun[]): WaitingMoves {
  const holders = holdersOf(open);
  const start: string[] = [];
  const still: WaitingMoves['still'] = [];
  for (const run of open) {
    if (!run.waiting) continue;
    if (still.length === 0 && holders.length < run.limit) {
      holders.push(run.id);
      start.push(run.id);
    } else {
      still.push({ id: run.id, waitingFor: [...holders], position: still.length + 1 });
    }
  }
  return { start, still };
}

/**
 * The place a resume asks for, or undefined when it asks for none: the run has no policy, or it
 * holds its place already (a paused run keeps it). A run that ended holds none, so carrying it on
 * is admitted like a new start of its key, under the policy it was admitted with.
 */
export function resumePolicy(run: Pick<Run, 'status' | 'metadata'>): RunConcurrency | undefined {
  const policy = run.metadata.concurrency;
  return policy && !holdingStatuses.includes(run.status) ? policy : undefined;
}

/**
 * A resume's metadata patch with the run's place in it: when it waits, its whole
 * `metadata.concurrency` with whom it waits for and its place (reline sets the final place).
 */
export function withPlace(
  patch: Record<string, unknown> | undefined,
  run: Pick<Run, 'metadata'> | undefined,
  place: Admission | undefined,
): Record<string, unknown> | undefined {
  if (place?.outcome !== 'wait' || !run?.metadata.concurrency) return patch;
  return { ...patch, concurrency: { ...run.metadata.concurrency, waiting_for: place.waitingFor, position: place.position } };
}

/** The statuses in which a run of a key counts among its open runs (concurrency-sql.ts reads the same). */
const holdingStatuses: readonly Run['status'][] = ['pending', 'running', 'paused'];

/** A start refused by `on_overlap: refuse`: 409, naming the runs that hold the places. */
export function concurrencyRefusal(run: { metadata: { concurrency?: RunConcurrency | undefined } }, refused: { refused: string; holders: string[] }): CairnError {
  return new CairnError('CONCURRENCY_LIMIT_REACHED', refused.refused, { key: run.metadata.concurrency?.key, runs: refused.holders });
}
