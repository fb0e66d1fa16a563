import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { NodeEntry } from './node-table.js';

/**
 * The run's final status and message once every node is terminal, in the upstream's words:
 * nothing completed → failed; something completed but something failed → failed with each
 * failure; otherwise completed.
 */
export function summariseOutcome(
  workflowName: string,
  nodes: Iterable<Readonly<NodeEntry>>,
): { status: 'completed'; error: null } | { status: 'failed'; error: string } {
  const failed: [string, Readonly<NodeEntry>][] = [];
  let completed = false;
  let skipped = 0;
  for (const node of nodes) {
    if (node.status === 'failed') failed.push([node.path, node]);
    else if (node.status === 'completed') completed = true;
    else if (node.status === 'skipped') skipped++;
  }
  if (!completed) {
    const error = failed.length
      ? `DAG workflow '${workflowName}' failed: node(s) ${failed.map(([id]) => id).join(', ')} failed. ${skipped} downstream node(s) were skipped.`
      : `DAG workflow '${workflowName}' completed with no successful nodes. Check node conditions, trigger rules, and upstream failures.`;
    return { status: 'failed', error };
  }
  if (failed.length) {
    const details = failed.map(([id, s]) => `'${id}': ${s.error ?? 'failed'}`).join('; ');
    return { status: 'failed', error: `DAG workflow '${workflowName}' completed with failures: ${details}` };
  }
  return { status: 'completed', error: null };
}

/**
 * The run's end once every node is terminal: its status and message (summariseOutcome) and the
 * run-level event that records it, with the time since the run first started (across
 * take-overs and restarts).
 */
export function runEnding(
  run: Run,
  workflowName: string,
  nodes: Iterable<Readonly<NodeEntry>>,
): ReturnType<typeof summariseOutcome> & { event: NewRunEvent } {
  const outcome = summariseOutcome(workflowName, nodes);
  const durationMs = Date.now() - Date.parse(run.started_at ?? run.created_at);
  const event =
    outcome.status === 'completed'
      ? newRunLevelEvent(run, 'workflow_completed', { duration_ms: durationMs })
      : newRunLevelEvent(run, 'workflow_failed', { error: outcome.error, duration_ms: durationMs });
  return { ...outcome, event };
}
