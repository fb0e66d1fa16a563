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
