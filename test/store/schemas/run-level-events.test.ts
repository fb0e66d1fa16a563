import { describe, expect, it } from 'vitest';
import {
  newRunLevelEvent,
  readRunLevelEventData,
  runLevelEventTypeSchema,
  runStatusOfEvent,
} from '../../../src/store/schemas/run-level-events.js';
import { makeTempHome } from '../../helpers/temp-home.js';
import { newRun } from '../fixtures.js';

/** The run-level events (`workflow_*`) as written by the supervisor and read by the API and CLI. */
describe('run-level events', () => {
  it('reads back, typed, what was written through the store', async () => {
    const home = await makeTempHome();
    try {
      const store = home.openStore();
      const run = await store.createRun(newRun());
      await store.appendEvents([
        newRunLevelEvent(run, 'workflow_started', { workflowName: 'demo', supervisorId: 's1', workingPath: null, inputs: ['who'] }),
        newRunLevelEvent(run, 'workflow_parse_warnings', { warnings: ["Node 'a': unknown key 'foo' will be ignored."] }),
        newRunLevelEvent(run, 'workflow_failed', { error: 'boom' }),
      ]);
      const [started, warnings, failed] = await store.listRunEvents(run.id);
      expect(started?.step_name).toBeNull();
      expect(readRunLevelEventData(started!, 'workflow_started')?.inputs).toEqual(['who']);
      expect(readRunLevelEventData(warnings!, 'workflow_parse_warnings')?.warnings).toHaveLength(1);
      expect(readRunLevelEventData(failed!, 'workflow_failed')).toEqual({ error: 'boom' });
    } finally {
      await home.close();
    }
  });

  it('answers undefined, never throws, for another type or data in another shape, and keeps extra keys', () => {
    const event = (event_type: string, data: Record<string, unknown>) => ({ event_type, data });
    expect(readRunLevelEventData(event('node_started', { warnings: ['x'] }), 'workflow_parse_warnings')).toBeUndefined();
    expect(readRunLevelEventData(event('workflow_parse_warnings', { warnings: 'x' }), 'workflow_parse_warnings')).toBeUndefined();
    expect(readRunLevelEventData(event('workflow_cancelled', { reason: 'r', by: 'cli' }), 'workflow_cancelled')).toEqual({
      reason: 'r',
      by: 'cli',
    });
  });

  it('names the run status each type announces, and none for other events', () => {
    const statuses = Object.fromEntries(runLevelEventTypeSchema.options.map((type) => [type, runStatusOfEvent(type)]));
    expect(statuses).toEqual({
      workflow_started: 'running',
      workflow_parse_warnings: undefined,
      workflow_completed: 'completed',
      workflow_failed: 'failed',
      workflow_cancelled: 'cancelled',
      workflow_paused: 'paused',
      workflow_resumed: 'running',
    });
    expect(runStatusOfEvent('node_completed')).toBeUndefined();
    expect(runStatusOfEvent('toString')).toBeUndefined();
  });
});
