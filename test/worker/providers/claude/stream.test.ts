import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../../../src/worker/attempt-protocol.js';
import { agentFinishedEvent } from '../../../../src/worker/nodes/agent/agent-records.js';
import { claudeAdapter } from '../../../../src/worker/providers/claude/adapter.js';
import { ClaudeStreamState } from '../../../../src/worker/providers/claude/stream.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';

/**
 * Claude Code's stream-json lines read through their schemas: fields and event types Cairn does
 * not know pass, and what it cannot read is counted with the first such line, in the attempt's
 * end and its record (`diagnostics.unreadableLines`).
 */

const oddCli = join(process.cwd(), 'test/fixtures/claude/odd-stream.mjs');

describe("Claude Code's stream, read through schemas", () => {
  it('reads the known fields of events with unknown ones, skips unknown event types, and counts a line that is not JSON and an event of the wrong shape', () => {
    const state = new ClaudeStreamState();
    const lines = [
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 's-1', new_field: { a: 1 } }),
      'not json at all',
      JSON.stringify({ type: 'assistant', message: { model: 'claude-x', content: [{ type: 'text', text: 'hi', extra: 1 }, { type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' }, caller: {} }] } }),
      JSON.stringify({ type: 'stream_event_of_tomorrow', payload: 1 }),
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't2', name: 42 }] } }),
      JSON.stringify({ type: 'result', subtype: 'success', result: 'hi', usage: { input_tokens: 2, output_tokens: 1, new_counter: 9 }, total_cost_usd: 0.01 }),
    ];
    const chunks = lines.flatMap((line) => state.read(line).chunks);
    expect(chunks).toEqual([
      { type: 'session', sessionId: 's-1' },
      { type: 'text', text: 'hi' },
      { type: 'tool_call', id: 't1', name: 'Read', input: { path: 'a' } },
    ]);
    expect(state.finished).toBe(true);
    expect(state.resultText).toBe('hi');
    expect(state.observations).toMatchObject({ tokens: { input: 2, output: 1 }, costUsd: 0.01 });
    const unreadable = state.unreadable.summary();
    expect(unreadable?.count).toBe(2);
    expect(unreadable?.first).toBe('not JSON: not json at all');
  });

  it('names the event and the field of the wrong shape', () => {
    const state = new ClaudeStreamState();
    state.read(JSON.stringify({ type: 'system', subtype: 'init', session_id: 7 }));
    expect(state.sessionId).toBeUndefined();
    expect(state.unreadable.summary()?.first).toMatch(/^"system\/init" event with session_id of the wrong shape/);
  });

  describe('through the adapter', () => {
    let dir: ReturnType<typeof scratch>;
    afterEach(() => dir?.cleanup());

    it("completes the attempt with what it could read, and the record says how many lines it could not, and the first", async () => {
      dir = scratch();
      const task = agentTask(dir.dir, { provider: 'claude', connection: { binaryPath: oddCli } });
      const { outcome, chunks } = await runAttempt(claudeAdapter, task);
      expect(outcome.status).toBe('completed');
      expect(chunks.filter((c) => c.type === 'text')).toEqual([{ type: 'text', text: 'hello' }]);
      expect(outcome.end?.sessionId).toBe('sess-odd');
      expect(outcome.end?.unreadableLines).toEqual({ count: 2, first: 'not JSON: Warning: this is not JSON' });
      const startedAt = new Date().toISOString();
      const result: AttemptResult = { status: 'completed', output: 'hello', startedAt, durationMs: 5, exitCode: null, signal: null };
      const record = agentFinishedEvent(task, startedAt, result, outcome.end, { text: 'hello' });
      const execution = record.data.execution as { diagnostics?: Record<string, unknown> };
      expect(execution.diagnostics?.unreadableLines).toEqual({ count: 2, first: 'not JSON: Warning: this is not JSON' });
    });
  });
});
