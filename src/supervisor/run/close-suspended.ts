import { attemptEndedEvent, readNodeEvent, rebuildRunSnapshot } from '../../records/index.js';
import type { NewRunEvent, RunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { isTerminal, type NodeTable } from './node-table.js';

/**
 * Attempts left open when a run ends cancelled: a `wait` not yet woken, a gate suspended while
 * other nodes still ran (`anySuspended`). Each gets its terminal record (failed, cancelled) with
 * the run's cancel, read from the log only when there is one.
 */
export async function closeHeldAttempts(
  run: Pick<Run, 'id' | 'conversation_id'>, table: NodeTable, anySuspended: boolean, store: Pick<Store, 'listRunEvents'>, reason: string,
): Promise<NewRunEvent[]> {
  if (!anySuspended && ![...table.values()].some((e) => e.heldAttempt && !isTerminal(e.status))) return [];
  return closeSuspendedAttempts(run, await store.listRunEvents(run.id), reason);
}

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
