import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import { runIdOf, type JobHandler } from './job-handler.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';

/**
 * `start_run`: moves a pending run to running under this supervisor and starts its scheduler (a
 * resumed run that waited for a place goes on from its events).
 */
export const startRunJob: JobHandler<'start_run'> = {
  mode: 'inline',
  async handle(job, { store, runs, supervisorId }) {
    const runId = runIdOf(job);
    if (await runs.driving(runId)) return 'already running';
    const pending = await store.getRun(runId);
    if (!pending || pending.status !== 'pending') return `ignored: run is ${pending?.status ?? 'gone'}`;
    // A cancel claimed before the run started (by another supervisor) wins: nothing is launched.
    if ((await store.getCancelRequestedAt(runId)) !== null) return 'ignored: the run is being cancelled';
    // A resumed run that waited for a place of its concurrency key has started before: its
    // `workflow_resumed` is written already, and it goes on from its events.
    const resumed = pending.started_at !== null;
    const run = await store.acquireRun({
      runId, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: ['pending'], status: 'running',
      events: resumed ? [] : startEvents(pending, supervisorId),
    });
    if (!run) return 'ignored: run changed state';
    if (resumed) return (await runs.resume(run)) ? 'resumed' : 'failed to resume';
    return (await runs.startFresh(run)) ? 'started' : 'failed to start';
  },

  /** A run that could not be started is failed with the reason, not left pending for ever. */
  async giveUp(job, error, { store, runs, supervisorId }) {
    const run = await store.getRun(runIdOf(job));
    if (run?.status !== 'pending') return;
    const message = `Run could not be started: ${error}`;
    const owned = await store.acquireRun({
      runId: run.id, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: ['pending'], status: 'running', events: [],
    });
    if (!owned) return;
    await store.transitionRun({
      runId: run.id, ownerId: supervisorId, status: 'failed', error: message, release: true,
      events: [newRunLevelEvent(run, 'workflow_failed', { error: message })],
    });
  },
};

/** `workflow_started`, and `workflow_parse_warnings` when the definition had keys Cairn ignores
 * (the API kept them in the run's metadata when it loaded the file). */
function startEvents(run: Run, supervisorId: string): NewRunEvent[] {
  const events = [
    newRunLevelEvent(run, 'workflow_started', {
      workflowName: run.workflow_name, supervisorId, workingPath: run.working_path, inputs: Object.keys(run.inputs),
    }),
  ];
  const warnings = run.metadata.parse_warnings;
  if (warnings?.length) events.push(newRunLevelEvent(run, 'workflow_parse_warnings', { warnings }));
  return events;
}
