import { attemptEndedEvent, readNodeEvent, rebuildRunSnapshot } from '../../records/index.js';
import type { NewRunEvent, RunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';

/**
 * The terminal records that close every attempt a run left suspended (a gate or an interactive
 * loop waiting for a person, a wait for its moment) when the run is ended without an answer
 * (cancel, abandon): each fails as cancelled, the same attempt that was suspended, so no
 * attempt of a finished run stays open.
 */
export function closeSuspendedAttempts(run: Pick<Run, 'id' | 'conversation_id'>, events: readonly RunEvent[], error: string): NewRunEvent[] {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const closing: NewRunEvent[] = [];
  for (const snap of rebuildRunSnapshot(events).nodes.values()) {
    if (snap.status !== 'suspended') continue;
    const row = readNodeEvent(bySeq.get(snap.lastSeq)!);
    if (row?.kind !== 'lifecycle' || !row.record) continue;
    const { record } = row;
    const durationMs = Math.max(0, Date.now() - Date.parse(record.attempt.startedAt));
    closing.push(
      attemptEndedEvent(
        {
          runId: run.id,
          conversationId: run.conversation_id,
          path: record.path,
          node: record.node,
          invocation: record.invocation,
          attemptId: record.attempt.id,
          startedAt: record.attempt.startedAt,
        },
        { status: 'failed', error, failureKind: 'cancelled', retryable: false },
        durationMs,
      ),
    );
  }
  return closing;
}
