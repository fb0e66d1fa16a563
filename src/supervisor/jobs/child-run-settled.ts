import { z } from 'zod';
import { CairnError } from '../../shared/errors.js';
import { approvalContextSchema } from '../../store/schemas/approval.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import { runStatusSchema } from '../../store/schemas/run.js';
import { runIdOf, type JobHandler } from './job-handler.js';

const payloadSchema = z.object({ childRunId: z.string(), status: runStatusSchema });

/**
 * `child_run_settled` (on the parent run): a child run paused or ended; queued by the store in
 * the transaction that changed the child's status, so the news survives any crash in between.
 *
 * - A node of the parent waiting for the child here hears it at once (ChildRunSignals).
 * - A parent driven here whose node was suspended on the child (the child paused while other
 *   nodes ran) continues that node in place.
 * - A parent paused as blocked on this child goes back to running and is rebuilt from its
 *   events; its suspended node, continued, reads the child's end.
 * Anything else (the parent ended, or its node will read the child's status when it is next
 * driven) leaves nothing to do.
 */
export const childRunSettledJob: JobHandler<'child_run_settled'> = {
  mode: 'inline',
  async handle(job, { store, runs, supervisorId, childSignals }) {
    const parentId = runIdOf(job);
    const { childRunId, status } = payloadSchema.parse(job.payload);
    if (childSignals?.notify(childRunId, status)) return 'delivered';
    const parent = await store.getRun(parentId);
    if (!parent) return 'ignored: parent run is gone';
    const child = await store.getRun(childRunId);
    const nodeId = child?.metadata.parent_node_id;
    if (parent.status === 'running') {
      const scheduler = await runs.driving(parentId);
      if (scheduler) {
        if (status === 'paused' || typeof nodeId !== 'string') return 'ignored: the node reads the child itself';
        const continued = scheduler.continueSuspended(nodeId);
        if (continued === 'ending') throw new CairnError('RUN_INVALID_STATE', `Run ${parentId} is pausing; the news of child ${childRunId} is delivered again`);
        return continued === 'continued' ? 'continued the node' : 'ignored: no node waits for it here';
      }
      const live = parent.owner_id !== null && parent.owner_id !== supervisorId && Date.parse(parent.lease_expires_at ?? '') > Date.now();
      // Driven by another supervisor: handed back so that one (which claims it too) hears it.
      if (live) throw new CairnError('RUN_INVALID_STATE', `Run ${parentId} is driven by another supervisor; the news of child ${childRunId} is delivered again`);
      return 'ignored: the parent reads the child when it is next driven';
    }
    if (parent.status !== 'paused' || status === 'paused') return `ignored: parent is ${parent.status}`;
    const approval = approvalContextSchema.safeParse(parent.metadata.approval);
    if (!approval.success || approval.data.type !== 'child_workflow' || approval.data.childRunId !== childRunId) {
      return 'ignored: the parent does not wait on this child';
    }
    const resumed = await store.acquireRun({
      runId: parentId, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: ['paused'], status: 'running',
      metadataPatch: { approval: null },
      events: [newRunLevelEvent(parent, 'workflow_resumed', { childRunId, childStatus: status })],
    });
    if (!resumed) return 'ignored: parent changed state';
    return (await runs.resume(resumed)) ? 'continued the parent' : 'failed to continue the parent';
  },
};
