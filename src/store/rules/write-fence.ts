import { CairnError } from '../../shared/errors.js';
import type { Job } from '../schemas/job.js';
import { holdsClaimedJob } from './job-leases.js';

/**
 * Fencing: a supervisor writes a run's events only while it owns the run. A store opened for a
 * supervisor (its `writer`) reads the owners of the runs a batch of events is for, under their
 * row locks in the transaction that inserts them, and inserts nothing for a run another
 * supervisor has taken over (or that nobody holds any more). A take-over always changes the
 * owner (every supervisor process has an id of its own, never reused), so the owner is the
 * epoch: a supervisor paused past its lease (SIGSTOP, a long GC, a network split) and resumed
 * commits nothing to a run that moved on without it. The same check guards the other writes a
 * supervisor makes for a run it drives: a node's session record, the release of the run's
 * worktree lock, and the jobs it asks of a child run. The cascade of a cancel is asked under the
 * `cancel_run` (or `abandon_run`) job being carried out, not the run (which may be nobody's): it
 * is fenced by the hold of that job, which a claim after its lease lapsed gives to another.
 */

/** A run's id and its owner as stored (the row is absent when the run was deleted). */
export interface RunOwnerRow {
  id: string;
  owner_id: string | null;
}

/** Why `writer` may not append events to the runs `runIds`, or undefined when it may. */
export function fenceRefusal(runIds: readonly string[], owners: readonly RunOwnerRow[], writer: string): CairnError | undefined {
  const ownerOf = new Map(owners.map((row) => [row.id, row.owner_id]));
  for (const runId of runIds) {
    // A deleted run takes no events anyway (the insert leaves them out): nothing to fence.
    if (!ownerOf.has(runId)) continue;
    const owner = ownerOf.get(runId) ?? null;
    if (owner === writer) continue;
    return new CairnError(
      'RUN_INVALID_STATE',
      `Run ${runId} is ${owner === null ? 'held by no supervisor' : `owned by supervisor ${owner}`}, not by ${writer}: ` +
        'its events were not written (it was taken over, or let go, while this supervisor was not renewing its lease)',
      { runId, owner, writer, fenced: true },
    );
  }
  return undefined;
}

/** Why `writer` may not queue jobs under the job it carries out (`job`, absent when gone), or undefined when it may. */
export function jobFenceRefusal(jobId: number, job: Pick<Job, 'status' | 'lease_owner'> | undefined, writer: string): CairnError | undefined {
  if (holdsClaimedJob(job, writer)) return undefined;
  const holder = job?.status === 'claimed' ? job.lease_owner : null;
  return new CairnError(
    'RUN_INVALID_STATE',
    `Job ${jobId} is ${holder === null ? `${job ? job.status : 'gone'}, held by no supervisor` : `held by supervisor ${holder}`}, not by ${writer}: ` +
      'the jobs asked under it were not queued (it was claimed again, or ended, while this supervisor was not renewing its lease)',
    { jobId, holder, writer, fenced: true },
  );
}

/** True for the errors fenceRefusal and jobFenceRefusal give. */
export function isFenced(err: unknown): boolean {
  return err instanceof CairnError && (err.details as { fenced?: unknown } | undefined)?.fenced === true;
}
