import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotAdapter } from '../../../../src/worker/providers/copilot/adapter.js';
import { CopilotStreamState } from '../../../../src/worker/providers/copilot/stream.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';

/**
 * `copilot --output-format json` events (as the pinned CLI prints them against the scripted
 * server in adapter.test.ts) read through their schemas: fields and event types Cairn does not
 * know pass, and what it cannot read is counted with the first such line (the attempt's end
 * carries it to `diagnostics.unreadableLines`).
 */

const event = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type, data, id: 'e1', timestamp: '2026-11-27T07:45:03.009Z', parentId: 'p1', ...extra });
const oddCli = join(process.cwd(), 'test/fixtures/copilot/odd-stream.mjs');

describe("Copilot's stream, read through schemas", () => {
  it('reads the known fields of events with unknown ones, skips unknown types, and counts a line that is not JSON and an event of the wrong shape', () => {
    const state = new CopilotStreamState();
    const lines = [
      event('session.tools_updated', { model: 'cp-test' }, { ephemeral: true }),
      event('user.message', { content: 'Say hello', transformedContent: 'Say hello', delivery: 'idle' }),
      '(node:12) ExperimentalWarning: not a JSON line',
      event('assistant.message_delta', { messageId: 'm1', deltaContent: 'hello ' }, { ephemeral: true }),
      event('assistant.reasoning_delta', { messageId: 'm1', deltaContent: 'thinking' }, { ephemeral: true }),
      event('tool.execution_start', { toolCallId: 'call_1', toolName: 'view', arguments: { path: 'README.md' }, toolTitle: 'Viewing file' }),
      event('tool.execution_complete', { toolCallId: 'call_1', success: true, result: { content: 'widget\n', detailedContent: 'diff' }, toolTelemetry: {} }),
      event('tool.execution_complete', { toolCallId: 'call_6', success: false, error: { message: 'Permission denied because no interactive user response was available.', code: 'denied' } }),
      event('assistant.message_delta', { messageId: 'm1', deltaContent: 42 }, { ephemeral: true }),
      event('assistant.message_delta', { messageId: 'm1', deltaContent: 'from copilot' }, { ephemeral: true }),
      event('assistant.message', { messageId: 'm1', content: 'hello from copilot', toolRequests: [] }),
      event('model.call_final_result', { model: 'cp-test', isByok: true, result: 'success' }, { ephemeral: true }),
      JSON.stringify({ type: 'result', timestamp: '2026-11-27T07:45:03.036Z', sessionId: 'dab083b0', exitCode: 0, usage: { premiumRequests: 0 } }),
    ];
    const chunks = lines.flatMap((line) => state.read(line));
    expect(chunks).toEqual([
      { type: 'text', text: 'hello ' },
      { type: 'thinking', text: 'thinking' },
      { type: 'tool_call', id: 'call_1', name: 'view', input: { path: 'README.md' } },
      { type: 'tool_result', id: 'call_1', output: 'widget\n' },
      { type: 'tool_result', id: 'call_6', output: 'Permission denied because no interactive user response was available.', isError: true, refused: true },
      { type: 'text', text: 'from copilot' },
      { type: 'session', sessionId: 'dab083b0' },
    ]);
    expect(state.finished).toBe(true);
    expect(state.answerText()).toBe('hello from copilot');
    expect(state.unreadable.summary()).toEqual({ count: 2, first: 'not JSON: (node:12) ExperimentalWarning: not a JSON line' });
  });

  it('names the event and the field of the wrong shape, and still fails a model call it could not read', () => {
    const state = new CopilotStreamState();
    state.read(event('model.call_failure', { model: 'cp-test', statusCode: '401', errorMessage: 'Incorrect API key provided' }));
    expect(state.errorMessage).toBe('the model call failed');
    expect(state.ownFailure()?.provider?.evidence).toBe('Copilot: the model call failed');
    expect(state.unreadable.summary()?.first).toMatch(/^"model.call_failure" event with data.statusCode of the wrong shape/);
  });

  it('counts nothing for a stream it read whole', () => {
    const state = new CopilotStreamState();
    state.read(event('model.call_failure', { model: 'cp-test', statusCode: 401, errorMessage: 'Incorrect API key provided', failureKind: 'api' }));
    state.read('');
    state.read(JSON.stringify({ type: 'result', sessionId: 's', exitCode: 1 }));
    expect(state.ownFailure()?.provider).toMatchObject({ class: 'auth', evidence: 'Copilot: Incorrect API key provided' });
    expect(state.unreadable.summary()).toBeUndefined();
  });

  describe('through the adapter', () => {
    let dir: ReturnType<typeof scratch>;
    afterEach(() => dir?.cleanup());

    it('completes the attempt with what it could read, and its end says how many lines it could not, and the first', async () => {
      dir = scratch();
      const task = agentTask(dir.dir, { provider: 'copilot', model: 'cp-test', connection: { binaryPath: oddCli, env: { HOME: dir.dir } } });
      const { outcome, chunks } = await runAttempt(copilotAdapter, task);
      expect(outcome.status).toBe('completed');
      expect(chunks.filter((c) => c.type === 'text')).toEqual([{ type: 'text', text: 'hello' }]);
      expect(outcome.end?.sessionId).toBe('cp-odd');
      expect(outcome.end?.unreadableLines).toEqual({ count: 2, first: 'not JSON: Warning: this is not JSON' });
    });
  });
});
