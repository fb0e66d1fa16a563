import { describe, expect, it } from 'vitest';
import { OpencodeStreamState } from '../../../../src/worker/providers/opencode/stream.js';

/** Which of OpenCode's tool errors are refusals, read from `opencode run --format json` lines as the CLI prints them. */

function toolLine(tool: string, state: Record<string, unknown>): string {
  return JSON.stringify({ type: 'tool_use', sessionID: 'ses_1', part: { type: 'tool', tool, callID: `call_${tool}`, state: { input: {}, ...state } } });
}

describe("OpenCode's tool results", () => {
  it('marks a denied call, a rejected ask and a call to a withheld tool as refused; a tool that failed is only an error', () => {
    const state = new OpencodeStreamState((tool) => tool === 'write');
    const results = [
      toolLine('write', { status: 'error', error: 'The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules []' }),
      toolLine('bash', { status: 'error', error: 'The user rejected permission to use this specific tool call.' }),
      toolLine('write', { status: 'error', error: "Model tried to call unavailable tool 'invalid'. Available tools: glob, grep, read." }),
      // Not withheld by the node's rules: a tool the model made up.
      toolLine('frobnicate', { status: 'error', error: "Model tried to call unavailable tool 'invalid'. Available tools: read." }),
      toolLine('bash', { status: 'error', error: 'Command failed: exit 1' }),
      toolLine('read', { status: 'completed', output: 'hello' }),
    ].flatMap((line) => state.read(line).filter((c) => c.type === 'tool_result'));
    expect(results.map((r) => [r.refused === true, 'isError' in r && r.isError === true])).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [false, true],
      [false, true],
      [false, false],
    ]);
    expect(results[5]).toMatchObject({ id: 'call_read', output: 'hello' });
  });
});

/**
 * `opencode run --format json` events read through their schemas: fields and event types Cairn
 * does not know pass, and what it cannot read is counted with the first such line (the attempt's
 * end carries it to `diagnostics.unreadableLines`).
 */
describe("OpenCode's stream, read through schemas", () => {
  it('reads the known fields of events with unknown ones, skips unknown types, and counts a line that is not JSON and an event of the wrong shape', () => {
    const state = new OpencodeStreamState();
    const lines = [
      JSON.stringify({ type: 'step_start', sessionID: 'ses_9', timestamp: 1, part: { type: 'step-start', snapshot: 'abc' } }),
      'INFO  service=bus not a JSON line',
      JSON.stringify({ type: 'text', sessionID: 'ses_9', part: { type: 'text', text: 'hello', time: { start: 1, end: 2 }, metadata: {} } }),
      JSON.stringify({ type: 'tool_use', sessionID: 'ses_9', part: { tool: 'read', callID: 'c1', state: { status: 'completed', input: { path: 'a' }, output: 'A', title: 'a', time: {} } } }),
      JSON.stringify({ type: 'patch_applied', sessionID: 'ses_9', files: ['a'] }),
      JSON.stringify({ type: 'text', sessionID: 'ses_9', part: { text: ['not', 'a', 'string'] } }),
      JSON.stringify({ type: 'step_finish', sessionID: 'ses_9', part: { type: 'step-finish', tokens: { input: 0 }, cost: 0 } }),
    ];
    const chunks = lines.flatMap((line) => state.read(line));
    expect(chunks).toEqual([
      { type: 'session', sessionId: 'ses_9' },
      { type: 'text', text: 'hello' },
      { type: 'tool_call', id: 'c1', name: 'read', input: { path: 'a' } },
      { type: 'tool_result', id: 'c1', output: 'A' },
    ]);
    expect(state.finished).toBe(true);
    expect(state.answerText()).toBe('hello');
    const unreadable = state.unreadable.summary();
    expect(unreadable?.count).toBe(2);
    expect(unreadable?.first).toBe('not JSON: INFO  service=bus not a JSON line');
  });

  it('names the event and the field of the wrong shape, and still reports the error it could not read', () => {
    const state = new OpencodeStreamState();
    state.read(JSON.stringify({ type: 'error', sessionID: 'ses_1', error: { name: 'APIError', data: { message: 'quota', statusCode: '429' } } }));
    expect(state.errorMessage).toBe('error');
    expect(state.ownFailure()?.message).toMatch(/OpenCode: error$/);
    expect(state.unreadable.summary()?.first).toMatch(/^"error" event with error.data.statusCode of the wrong shape/);
  });
});
