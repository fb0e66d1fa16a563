import { fullOutput } from '../../records/full-output.js';
import { rebuildRunSnapshot } from '../../records/run-snapshot.js';
import type { Store } from '../../store/store.js';
import type { AttemptResult } from '../attempt-protocol.js';

/**
 * The outcome an attempt's own record holds, for the pool when its close was not the first: the
 * thread closed the attempt and ended before it answered (a crash right after the commit). The
 * record is the attempt's truth; answering the pool's guess instead (a transient failure) would
 * make the scheduler run a node again whose record says it completed, or retry one whose record
 * says it failed for good. `guess` is answered when no record of the attempt's end is found.
 */
export async function recordedResult(
  store: Pick<Store, 'listRunEvents'>,
  task: { runId: string; path: string; attempt: { id: string } },
  guess: AttemptResult,
): Promise<AttemptResult> {
  const events = await store.listRunEvents(task.runId);
  const end = events.find((e) => (e.event_type === 'node_completed' || e.event_type === 'node_failed') && attemptIdOf(e.data) === task.attempt.id);
  const node = rebuildRunSnapshot(events).nodes.get(task.path);
  if (!end || !node || node.lastSeq !== end.seq) return guess;
  const facts = { startedAt: guess.startedAt, durationMs: guess.durationMs, exitCode: guess.exitCode, signal: guess.signal };
  if (node.status === 'completed' && node.reusable) return { status: 'completed', output: await fullOutput(node), ...facts };
  if (node.lifecycle?.status === 'failed') {
    const { error, failureKind, retryable } = node.lifecycle;
    return {
      status: 'failed', output: '', error, ...facts,
      ...(failureKind !== undefined ? { failureKind } : {}),
      ...(retryable !== undefined ? { retryable } : {}),
    };
  }
  return guess;
}

function attemptIdOf(data: Record<string, unknown>): unknown {
  return (data.execution as { attempt?: { id?: unknown } } | undefined)?.attempt?.id;
}
