import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveNodeEventData } from '../../../../src/records/live-event-data.js';
import type { AttemptResult } from '../../../../src/worker/attempt-protocol.js';
import { agentFinishedEvent, agentStartedEvent } from '../../../../src/worker/nodes/agent/agent-records.js';
import { agentWorkerKind } from '../../../../src/worker/nodes/agent/kind.js';
import type { ProviderEnd } from '../../../../src/worker/providers/provider-adapter.js';
import { agentTask, scratch } from '../../providers/agent-harness.js';

/**
 * The binding an AI attempt's records carry: the session origin its start record can know (the
 * intent), the one its terminal record knows (what the provider said), and a session preview
 * that never shows a whole session id.
 */

let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(() => dir.cleanup());

const startedAt = new Date().toISOString();
const failed: AttemptResult = { status: 'failed', output: '', error: 'thread died', startedAt, durationMs: 5, exitCode: null, signal: null };
const completed: AttemptResult = { ...failed, status: 'completed', output: 'done' };
const ended = (end: Partial<ProviderEnd>): ProviderEnd => ({ type: 'end', called: true, observations: {}, ...end });

function bindingOf(event: { data: Record<string, unknown> }) {
  return (event.data.execution as { binding: { sessionOrigin?: string; sessionPreview?: string } }).binding;
}

describe('binding.sessionOrigin of an AI attempt', () => {
  it('starts fresh without a session to continue', () => {
    const task = agentTask(dir.dir, { provider: 'pi', model: 'pi-test' });
    expect(bindingOf(agentStartedEvent(task, startedAt, 4242)).sessionOrigin).toBe('fresh');
    expect(bindingOf(agentFinishedEvent(task, startedAt, completed, ended({ sessionId: 'a'.repeat(36) }), undefined)).sessionOrigin).toBe('fresh');
  });

  it('starts as resumed when the attempt is to continue a session, and ends with what the provider said', () => {
    const task = agentTask(dir.dir, { provider: 'pi', model: 'pi-test', resumeSessionId: 'f1e2d3c4-0000-4000-8000-000000000000' });
    expect(bindingOf(agentStartedEvent(task, startedAt, 4242)).sessionOrigin).toBe('resumed');
    const cold = agentFinishedEvent(task, startedAt, completed, ended({ sessionOrigin: 'resume-failed-cold', sessionId: 'b'.repeat(36) }), undefined);
    expect(bindingOf(cold).sessionOrigin).toBe('resume-failed-cold');
    const resumed = agentFinishedEvent(task, startedAt, completed, ended({ sessionOrigin: 'resumed', sessionId: 'f1e2d3c4-0000-4000-8000-000000000000' }), undefined);
    expect(bindingOf(resumed).sessionOrigin).toBe('resumed');
    // Closed by the pool (its thread died): nothing more is known than at the start.
    expect(bindingOf(agentWorkerKind.closedEvent(agentWorkerKind.taskSchema.parse(task), startedAt, failed)).sessionOrigin).toBe('resumed');
  });
});

describe('binding.sessionPreview', () => {
  it('never shows a whole session id, however short, in the public metadata', () => {
    const task = agentTask(dir.dir, { provider: 'pi', model: 'pi-test' });
    for (const sessionId of ['Q', 'QZ', 'QZ7XK9WJ', 'QZ7XK9WJV', 'f1e2d3c4-0000-4000-8000-000000000000']) {
      const event = agentFinishedEvent(task, startedAt, completed, ended({ sessionId }), undefined);
      const preview = bindingOf(event).sessionPreview!;
      expect(preview.endsWith('…')).toBe(true);
      const shown = preview.slice(0, -1);
      expect(sessionId.startsWith(shown), sessionId).toBe(true);
      expect(shown.length, sessionId).toBeLessThanOrEqual(Math.min(8, sessionId.length / 2));
      const live = JSON.stringify(liveNodeEventData(event.data));
      expect(live).toContain(`"sessionPreview":"${preview}"`);
      expect(live).not.toContain(`"${sessionId}`);
    }
    expect(bindingOf(agentFinishedEvent(task, startedAt, completed, ended({ sessionId: 'f1e2d3c4-0000' }), undefined)).sessionPreview).toBe('f1e2d3…');
  });
});

describe('diagnostics.unreadableLines of an AI attempt', () => {
  it('keeps how many lines of its stream could not be read, and the first cut to 300 characters', () => {
    const task = agentTask(dir.dir, { provider: 'claude' });
    const first = `not JSON: ${'x'.repeat(400)}`;
    const event = agentFinishedEvent(task, startedAt, completed, ended({ unreadableLines: { count: 3, first } }), undefined);
    const diagnostics = (event.data.execution as { diagnostics?: { unreadableLines?: { count: number; first: string } } }).diagnostics;
    expect(diagnostics?.unreadableLines).toEqual({ count: 3, first: `${first.slice(0, 300)}…` });
    expect(liveNodeEventData(event.data)).not.toHaveProperty('unreadable_lines');
  });

  it('is absent when every line was read', () => {
    const task = agentTask(dir.dir, { provider: 'claude' });
    const event = agentFinishedEvent(task, startedAt, completed, ended({}), undefined);
    expect((event.data.execution as { diagnostics?: object }).diagnostics ?? {}).not.toHaveProperty('unreadableLines');
  });
});
