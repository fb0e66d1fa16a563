import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import { RUN_LEASE_MS } from '../process/run-registry.js';
import type { JobHandler } from './job-handler.js';

/** `start_run`: moves a pending run to running under this supervisor and starts its scheduler. */
export const startRunJob: JobHandler = {
  mode: 'inline',
  async handle(job, { store, runs, supervisorId }) {
    const runId = job.run_id;
    if (runs.get(runId)) return 'already running';
    const pending = await store.getRun(runId);
    if (!pending || pending.status !== 'pending') return `ignored: run is ${pending?.status ?? 'gone'}`;
    const run = await store.acquireRun({
      runId, ownerId: supervisorId, leaseMs: RUN_LEASE_MS, fromStatuses: ['pending'], status: 'running',
      events: startEvents(pending, supervisorId),
    });
    if (!run) return 'ignored: run changed state';
    return (await runs.startFresh(run)) ? 'started' : 'failed to start';
  },
};

/** `workflow_started`, and `workflow_parse_warnings` when the definition had keys Cairn ignores
 * (the API kept them in the run's metadata when it loaded the file). */
function startEvents(run: Run, supervisorId: string): NewRunEvent[] {
  const base = { run_id: run.id, conversation_id: run.conversation_id, step_name: null };
  const events: NewRunEvent[] = [
    {
      ...base,
      event_type: 'workflow_started',
      data: { workflowName: run.workflow_name, supervisorId, workingPath: run.working_path, inputs: Object.keys(run.inputs) },
    },
  ];
  const warnings = run.metadata.parse_warnings;
  if (Array.isArray(warnings) && warnings.length > 0) {
    events.push({ ...base, event_type: 'workflow_parse_warnings', data: { warnings } });
  }
  return events;
}
