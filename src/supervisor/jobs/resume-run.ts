import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import type { ResumeRunResult } from '../../store/schemas/job-results.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import { resumableRunStatuses } from '../../runs/run-operations.js';
import { CairnError } from '../../shared/errors.js';
import { runIdOf, type JobHandler } from './job-handler.js';


/**
 * `resume_run`: moves a failed or paused run back to running under this supervisor, in one
 * transition that also writes `workflow_resumed` (the boundary restoreRun reads a new pass
 * from) and, for a resume with `reload`, the definition as the workflow's file now reads (the
 * scheduler then makes the run's copy of its files again: `reload: true` on the event). Then the
 * run's scheduler starts from the table rebuilt from the run's events: nodes with a prior success
 * are replayed, reset or invalidated as they are decided, the others run again.
 *
 * A run that ended holds no place of its workflow's concurrency key: the same transition admits
 * it under its policy (the store decides), so it may be left pending, waiting for a place (its
 * `start_run` job, queued when one frees, carries the resume on), or be refused.
 *
 * Handled twice (its supervisor died after the transition), the job finds the run running and
 * leaves it to the take-over, which reads the same boundary.
 */
export const resumeRunJob: JobHandler<'resume_run'> = {
  mode: 'inline',
  async handle(job, { store, runs, supervisorId }) {
    const runId = runIdOf(job);
    if (await runs.driving(runId)) return ignored('run is running');
    const run = await store.getRun(runId);
    if (!run) return ignored('run is gone');
    // A fan-out retry (rerunNodes) also resumes a completed run: its failed items run again.
    const rerunNodes = Array.isArray(job.payload.rerunNodes) ? job.payload.rerunNodes.filter((n): n is string => typeof n === 'string') : [];
    const retrying = rerunNodes.length > 0 && run.status === 'completed';
    if (!resumableRunStatuses.includes(run.status) && !retrying) return ignored(`run is ${run.status}`);
    // An automatic resume (quota-resume.ts) applies only to the failure that queued it: a person
    // resumed the run first, or it failed again since, and the run's metadata names no such resume.
    const auto = autoResumeOf(job.payload);
    if (auto !== undefined && (run.status !== 'failed' || scheduledAutoResumeAt(run) !== auto)) {
      return ignored('the automatic resume it was queued for is no longer due');
    }
    const definition = job.payload.definition;
    const budgetUsd = job.payload.budgetUsd;
    // A budget pause is over once resumed; a raised budget (asked with the resume) is the run's now.
    const metadataPatch: Record<string, unknown> = {
      ...(run.metadata.budget_pause ? { budget_pause: null } : {}),
      // Any resume ends a wait for a usage limit: its queued job finds nothing to do.
      ...(run.metadata.auto_resume ? { auto_resume: null } : {}),
      ...(typeof budgetUsd === 'number' && budgetUsd > 0 ? { budget: { usd: budgetUsd } } : {}),
    };
    const resumed = await acquireUnderPolicy(() => store.acquireRun({
      runId, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: [run.status], status: 'running',
      resume: true,
      ...(definition !== undefined ? { definition } : {}),
      ...(Object.keys(metadataPatch).length ? { metadataPatch } : {}),
      events: [resumedEvent(run, supervisorId, rerunNodes, auto !== undefined, job.payload.reload === true)],
    }));
    if (resumed === undefined) return ignored('run changed state');
    if ('outcome' in resumed) return resumed;
    if (resumed.status === 'pending') return waitingOf(resumed);
    return (await runs.resume(resumed)) ? { outcome: 'resumed' } : { outcome: 'failed', reason: 'failed to resume' };
  },
};

const ignored = (reason: string): ResumeRunResult => ({ outcome: 'ignored', reason });

/**
 * The resume's acquire, which its workflow's concurrency policy decides (RunStore.acquireRun):
 * a refusal is the job's answer, the run left as it was.
 */
async function acquireUnderPolicy(acquire: () => Promise<Run | undefined>): Promise<Run | undefined | ResumeRunResult> {
  try {
    return await acquire();
  } catch (err) {
    if (err instanceof CairnError && err.code === 'CONCURRENCY_LIMIT_REACHED') return refusalOf(err);
    throw err;
  }
}

/** A refusal's answer: its text, and the key and runs holding its places the error carries (concurrencyRefusal). */
function refusalOf(err: CairnError): ResumeRunResult {
  const details = (err.details ?? {}) as { key?: unknown; runs?: unknown };
  const holders = Array.isArray(details.runs) ? details.runs.filter((id): id is string => typeof id === 'string') : [];
  return { outcome: 'refused', reason: err.message, key: typeof details.key === 'string' ? details.key : '', holders };
}

/** Whom a resumed run waits for and its place in line, as its metadata.concurrency says. */
function waitingOf(run: Run): ResumeRunResult {
  const place = run.metadata.concurrency;
  return { outcome: 'waiting', key: place?.key ?? '', position: place?.position ?? 1, waitingFor: [...(place?.waiting_for ?? [])] };
}

function resumedEvent(run: Run, supervisorId: string, rerunNodes: readonly string[], auto: boolean, reload: boolean): NewRunEvent {
  return newRunLevelEvent(run, 'workflow_resumed', {
    resumedFrom: run.status,
    supervisorId,
    ...(auto ? { auto: true } : {}),
    // The scheduler makes the run's copy of its files again (supervisor/run/run-files.ts).
    ...(reload ? { reload: true } : {}),
    ...(rerunNodes.length ? { rerunNodes: [...rerunNodes] } : {}),
    ...(run.error !== null ? { error: run.error } : {}),
  });
}

/** The reset moment an automatic resume job was queued for (its payload's `auto.at`). */
function autoResumeOf(payload: Record<string, unknown>): string | undefined {
  const at = (payload.auto as { at?: unknown } | undefined)?.at;
  return typeof at === 'string' ? at : undefined;
}

/** The automatic resume the run's metadata says is queued, if any. */
function scheduledAutoResumeAt(run: Run): string | undefined {
  const at = (run.metadata.auto_resume as { at?: unknown } | null | undefined)?.at;
  return typeof at === 'string' ? at : undefined;
}
