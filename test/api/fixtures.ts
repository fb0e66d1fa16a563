import type { NewRunEvent } from '../../src/store/schemas/event.js';
import { newRun } from '../store/fixtures.js';
import type { Run, RunStatus } from '../../src/store/schemas/run.js';
import type { NewRun, Store } from '../../src/store/store.js';

/** Inserts a pending run (and its start job) the way the run route does. */
export function seedRun(store: Store, overrides: Partial<NewRun> = {}): Promise<Run> {
  return store.createRun(newRun(overrides));
}

export function runEvent(
  run: Pick<Run, 'id' | 'conversation_id'>,
  eventType: string,
  stepName: string | null = null,
  data: Record<string, unknown> = {},
): NewRunEvent {
  return { run_id: run.id, conversation_id: run.conversation_id, event_type: eventType, step_name: stepName, data };
}

/** The owner id runs moved by `moveRun` are held under. */
export const TEST_SUPERVISOR = 'test-supervisor';

/**
 * Plays the supervisor through a second connection: takes the run and moves it to `status`
 * (writing `events` in the same transaction), as the real supervisor does.
 */
export async function moveRun(
  writer: Store,
  run: Run,
  status: RunStatus,
  events: NewRunEvent[] = [],
): Promise<Run> {
  const ownerId = TEST_SUPERVISOR;
  const taken = await writer.acquireRun({
    runId: run.id,
    ownerId,
    leaseMs: 60_000,
    fromStatuses: ['pending', 'running', 'paused', 'failed'],
    status: 'running',
    events: [],
  });
  if (!taken) throw new Error(`could not take run ${run.id}`);
  if (status === 'running' && events.length === 0) return taken;
  const terminal = ['completed', 'failed', 'cancelled', 'paused'].includes(status);
  return writer.transitionRun({ runId: run.id, ownerId, status, release: terminal, events });
}
