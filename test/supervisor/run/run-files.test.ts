import { expect, it } from 'vitest';
import { isReloadDue } from '../../../src/supervisor/run/run-files.js';
import type { RunEvent } from '../../../src/store/schemas/event.js';

const event = (seq: number, event_type: string, data: Record<string, unknown> = {}): RunEvent => ({
  seq, run_id: 'r', conversation_id: 'c', event_type, step_name: null, data, created_at: '2026-01-01T00:00:00.000Z',
});

/**
 * Whether the scheduler takes the run's copy again is read from the events: so a resume with
 * reload that waited for a concurrency place, or whose supervisor stopped before the copy was
 * taken, still reloads once, and never twice.
 */
it('is due after a resume that asked to reload until a workflow_reloaded follows it, and never for another resume', () => {
  const started = [event(1, 'workflow_started'), event(2, 'workflow_failed')];
  expect(isReloadDue(started)).toBe(false);
  expect(isReloadDue([...started, event(3, 'workflow_resumed', { reload: true })])).toBe(true);
  // Taken over or started again after waiting: node events in between do not matter.
  expect(isReloadDue([...started, event(3, 'workflow_resumed', { reload: true }), event(4, 'node_started')])).toBe(true);
  expect(isReloadDue([...started, event(3, 'workflow_resumed', { reload: true }), event(4, 'workflow_reloaded')])).toBe(false);
  expect(isReloadDue([...started, event(3, 'workflow_resumed', { reload: true }), event(4, 'workflow_reloaded'), event(5, 'workflow_resumed')])).toBe(false);
  expect(isReloadDue([...started, event(3, 'workflow_resumed', { reload: 'yes' })])).toBe(false);
});
