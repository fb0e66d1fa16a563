import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../../../src/worker/attempt-protocol.js';
import { agentFinishedEvent } from '../../../../src/worker/nodes/agent/agent-records.js';
import { geminiAdapter } from '../../../../src/worker/providers/gemini/adapter.js';
import { GeminiStreamState } from '../../../../src/worker/providers/gemini/stream.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';

/**
 * The Gemini CLI's `--output-format stream-json` lines (as the pinned CLI prints them against the
 * scripted server in adapter.test.ts) read through their schemas: fields and event types Cairn
 * does not know pass, and what it cannot read is counted with the first such line, in the
 * attempt's end and its record (`diagnostics.unreadableLines`).
 */

const at = '2026-11-27T07:45:00.234Z';
const line = (event: Record<string, unknown>) => JSON.stringify({ timestamp: at, ...event });
const oddCli = join(process.cwd(), 'test/fixtures/gemini/odd-stream.mjs');

describe("the Gemini CLI's stream, read through schemas", () => {
  it('reads the known fields of events with unknown ones, skips unknown types, and counts a line that is not JSON and an event of the wrong shape', () => {
    const state = new GeminiStreamState();
    const lines = [
      line({ type: 'init', session_id: 'gem-1', model: 'gemini-2.5-flash', sandbox: { kind: 'none' } }),
      line({ type: 'message', role: 'user', content: 'Say hello' }),
      'Loaded cached credentials.',
      line({ type: 'message', role: 'assistant', content: 'hello ', delta: true }),
      line({ type: 'tool_use', tool_name: 'read_file', tool_id: 'read_file_1', parameters: { file_path: 'seed.txt' } }),
      line({ type: 'tool_result', tool_id: 'read_file_1', status: 'error', output: 'File not found.', error: { type: 'file_not_found', message: 'File not found: seed.txt' } }),
      line({ type: 'tool_result', tool_id: 'write_file_2', status: 'error', error: { type: 'policy_violation', message: 'denied by policy' } }),
      line({ type: 'thought_of_tomorrow', text: 'x' }),
      line({ type: 'message', role: 'assistant', content: ['not', 'a', 'string'], delta: true }),
      line({ type: 'message', role: 'assistant', content: 'from gemini', delta: true }),
      line({
        type: 'result', status: 'success',
        stats: { total_tokens: 12, input_tokens: 12, output_tokens: 0, cached: 2, input: 10, duration_ms: 314, tool_calls: 1, models: { 'gemini-2.5-flash-test-001': { total_tokens: 12 } } },
      }),
    ];
    const chunks = lines.flatMap((l) => state.read(l));
    expect(chunks).toEqual([
      { type: 'session', sessionId: 'gem-1' },
      { type: 'text', text: 'hello ' },
      { type: 'tool_call', id: 'read_file_1', name: 'read_file', input: { file_path: 'seed.txt' } },
      { type: 'tool_result', id: 'read_file_1', output: 'File not found.', isError: true },
      { type: 'tool_result', id: 'write_file_2', output: JSON.stringify({ type: 'policy_violation', message: 'denied by policy' }), isError: true, refused: true },
      { type: 'text', text: 'from gemini' },
    ]);
    expect(state.text).toBe('hello from gemini');
    expect(state.finished).toBe(true);
    expect(state.resultError).toBeUndefined();
    expect(state.observations.tokens).toEqual({ input: 12, output: 0, cacheRead: 2, total: 12 });
    expect(state.resolvedModel).toBe('gemini-2.5-flash-test-001');
    expect(state.unreadable.summary()).toEqual({ count: 2, first: 'not JSON: Loaded cached credentials.' });
  });

  it('names the event and the field of the wrong shape', () => {
    const state = new GeminiStreamState();
    state.read(line({ type: 'init', session_id: 42 }));
    expect(state.sessionId).toBeUndefined();
    expect(state.unreadable.summary()?.first).toMatch(/^"init" event with session_id of the wrong shape/);
  });

  it('ends the turn on a result it cannot read whole: an error stays an error, odd stats are counted and left out', () => {
    const failed = new GeminiStreamState();
    failed.read(line({ type: 'result', status: 'error', error: 'a bare string' }));
    expect(failed.finished).toBe(true);
    expect(failed.resultError).toBe('the CLI reported an error');
    expect(failed.unreadable.summary()?.first).toMatch(/^"result" event with error of the wrong shape/);

    const odd = new GeminiStreamState();
    odd.read(line({ type: 'result', status: 'success', stats: { input_tokens: '12', output_tokens: 1 } }));
    expect(odd.finished).toBe(true);
    expect(odd.resultError).toBeUndefined();
    expect(odd.observations.tokens).toBeUndefined();
    expect(odd.unreadable.summary()?.first).toMatch(/^"result" stats with input_tokens of the wrong shape/);
  });

  it('counts nothing for a stream it read whole', () => {
    const state = new GeminiStreamState();
    state.read(line({ type: 'init', session_id: 'gem-2', model: 'm' }));
    state.read('');
    state.read(line({ type: 'error', severity: 'warning', message: 'Loop detected, stopping execution' }));
    state.read(line({ type: 'result', status: 'error', error: { type: 'FatalTurnLimitedError', message: 'Maximum session turns exceeded' }, stats: { input_tokens: 1, output_tokens: 1, models: {} } }));
    expect(state.resultError).toBe('Maximum session turns exceeded');
    expect(state.unreadable.summary()).toBeUndefined();
  });

  describe('through the adapter', () => {
    let dir: ReturnType<typeof scratch>;
    afterEach(() => dir?.cleanup());

    it('completes the attempt with what it could read, and the record says how many lines it could not, and the first', async () => {
      dir = scratch();
      const task = agentTask(dir.dir, { provider: 'gemini', connection: { binaryPath: oddCli, env: { HOME: dir.dir } } });
      const { outcome, chunks } = await runAttempt(geminiAdapter, task);
      expect(outcome.status).toBe('completed');
      expect(chunks.filter((c) => c.type === 'text')).toEqual([{ type: 'text', text: 'hello' }]);
      expect(chunks.filter((c) => c.type === 'tool_call')).toEqual([]);
      expect(outcome.end?.sessionId).toBe('gem-odd');
      expect(outcome.end?.unreadableLines).toEqual({ count: 2, first: 'not JSON: Warning: this is not JSON' });
      const startedAt = new Date().toISOString();
      const result: AttemptResult = { status: 'completed', output: 'hello', startedAt, durationMs: 5, exitCode: null, signal: null };
      const record = agentFinishedEvent(task, startedAt, result, outcome.end, { text: 'hello' });
      const execution = record.data.execution as { diagnostics?: Record<string, unknown> };
      expect(execution.diagnostics?.unreadableLines).toEqual({ count: 2, first: 'not JSON: Warning: this is not JSON' });
    });
  });
});
