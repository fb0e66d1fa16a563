import { describe, expect, it } from 'vitest';
import { PiStreamState } from '../../../../src/worker/providers/pi/stream.js';

/**
 * `pi --mode json -p` events (as the pinned CLI prints them against the scripted server in
 * adapter.test.ts) read through their schemas: fields and event types Cairn does not know pass,
 * and what it cannot read is counted with the first such line (the attempt's end carries it to
 * `diagnostics.unreadableLines`, as chat-cli.ts does for every Chat Completions CLI).
 */

const line = (event: Record<string, unknown>) => JSON.stringify(event);
const usage = { input: 15, output: 0, cacheRead: 5, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  role: 'assistant', content, api: 'openai-completions', provider: 'cairn', model: 'pi-test', usage, stopReason: 'stop', timestamp: 1, ...extra,
});
const update = (assistantMessageEvent: Record<string, unknown>) => line({ type: 'message_update', assistantMessageEvent, message: assistant([]) });

describe("Pi's stream, read through schemas", () => {
  it('reads the known fields of events with unknown ones, skips unknown types, and counts a line that is not JSON and an event of the wrong shape', () => {
    const state = new PiStreamState();
    const lines = [
      line({ type: 'session', version: 3, id: '01a21bf7', timestamp: '2026-11-27T07:45:31.840Z', cwd: '/repo' }),
      line({ type: 'agent_start' }),
      line({ type: 'message_start', message: { role: 'user', content: [{ type: 'text', text: 'Say hello' }], timestamp: 1 } }),
      line({ type: 'message_end', message: { role: 'user', content: 'a user message may be a plain string', timestamp: 1 } }),
      'Debugger listening: not a JSON line',
      update({ type: 'text_start', contentIndex: 0, partial: assistant([]) }),
      update({ type: 'thinking_delta', contentIndex: 0, delta: 'pondering', partial: assistant([]) }),
      update({ type: 'text_delta', contentIndex: 1, delta: 'hello ', partial: assistant([]) }),
      update({ type: 'text_delta', contentIndex: 1, delta: { text: 'x' }, partial: assistant([]) }),
      update({ type: 'text_delta', contentIndex: 1, delta: 'from pi', partial: assistant([]) }),
      line({ type: 'tool_execution_start', toolCallId: 'call_1', toolName: 'read', args: { path: 'README.md' } }),
      line({ type: 'tool_execution_update', toolCallId: 'call_1', toolName: 'read', partialResult: { content: [] } }),
      line({ type: 'tool_execution_end', toolCallId: 'call_1', toolName: 'read', result: { content: [{ type: 'text', text: 'widget\n' }] }, isError: false }),
      line({ type: 'tool_execution_end', toolCallId: 'call_2', toolName: 'write', result: { content: [{ type: 'text', text: 'Tool write not found' }], details: {} }, isError: true }),
      line({ type: 'message_end', message: assistant([{ type: 'thinking', thinking: 'pondering' }, { type: 'text', text: 'hello from pi' }], { responseModel: 'pi-test-2026' }) }),
      line({ type: 'turn_end', message: assistant([{ type: 'text', text: 'hello from pi' }]), toolResults: [] }),
      line({ type: 'agent_end', messages: [] }),
    ];
    const chunks = lines.flatMap((l) => state.read(l));
    expect(chunks).toEqual([
      { type: 'session', sessionId: '01a21bf7' },
      { type: 'thinking', text: 'pondering' },
      { type: 'text', text: 'hello ' },
      { type: 'text', text: 'from pi' },
      { type: 'tool_call', id: 'call_1', name: 'read', input: { path: 'README.md' } },
      { type: 'tool_result', id: 'call_1', output: 'widget\n' },
      { type: 'tool_result', id: 'call_2', output: 'Tool write not found', isError: true, refused: true },
    ]);
    expect(state.finished).toBe(true);
    expect(state.answerText()).toBe('hello from pi');
    expect(state.ownFailure()).toBeUndefined();
    expect(state.unreadable.summary()).toEqual({ count: 2, first: 'not JSON: Debugger listening: not a JSON line' });
  });

  it("names the event and the field of the wrong shape, and still returns a tool's result it could not read as its JSON", () => {
    const state = new PiStreamState();
    const chunks = state.read(line({ type: 'tool_execution_end', toolCallId: 'call_3', toolName: 'bash', result: { content: 'a bare string' }, isError: true }));
    expect(chunks).toEqual([{ type: 'tool_result', id: 'call_3', output: JSON.stringify({ content: 'a bare string' }), isError: true }]);
    expect(state.unreadable.summary()).toEqual({ count: 1, first: expect.stringMatching(/^"tool_execution_end" event's result with content of the wrong shape/) });
  });

  it('counts nothing for a stream it read whole, and keeps the error that ended a failed call', () => {
    const state = new PiStreamState();
    state.read(line({ type: 'session', version: 3, id: 's-2', timestamp: 't', cwd: '/' }));
    state.read('');
    state.read(line({ type: 'message_end', message: assistant([], { stopReason: 'error', errorMessage: '429 rate limited' }) }));
    state.read(line({ type: 'agent_end', messages: [] }));
    expect(state.ownFailure()?.provider?.class).toBe('rate_limited');
    expect(state.unreadable.summary()).toBeUndefined();
  });
});
