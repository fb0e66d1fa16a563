import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodexRollout } from '../../../../src/worker/providers/codex/rollout.js';
import { UnreadableTally } from '../../../../src/worker/providers/common/stream-lines.js';
import { scratch } from '../agent-harness.js';

/**
 * A Codex session's rollout (the JSONL file Codex appends to as the turn goes) read through its
 * schemas, as the pinned CLI writes it: entries and items that are not tool calls pass, and a
 * line it cannot read is counted in the attempt's tally with the stdout reader's.
 */

const thread = '01a21c1c-116a-7f91-80d2-117228a68df0';
const entry = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-27T08:25:31.492Z', ordinal: 0, type, payload });

let dir: ReturnType<typeof scratch> | undefined;
afterEach(() => dir?.cleanup());

function rolloutOf(lines: string[]): { sessions: string } {
  dir = scratch();
  const day = join(dir.dir, 'sessions', '2026', '11', '27');
  mkdirSync(day, { recursive: true });
  writeFileSync(join(day, `rollout-2026-11-27T08-25-31-${thread}.jsonl`), `${lines.join('\n')}\n`);
  return { sessions: join(dir.dir, 'sessions') };
}

describe("a Codex session's rollout, read through schemas", () => {
  it('reads tool calls and their outputs, skips other entries and items, and counts a line it cannot read', async () => {
    const { sessions } = rolloutOf([
      entry('session_meta', { id: thread, cwd: '/repo', runtime_workspace_roots: [] }),
      entry('event_msg', { type: 'task_started', turn_id: 't1' }),
      entry('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] }),
      entry('response_item', { type: 'function_call', status: 'completed', id: 'fc_1', name: 'exec_command', arguments: '{"cmd":"cat README.md"}', call_id: 'call_1', internal_chat_message_metadata_passthrough: {} }),
      'a torn line that is not JSON',
      entry('response_item', { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: 'Process exited with code 0\nOutput:\n# project\n' }),
      entry('response_item', { type: 'function_call', name: 42, call_id: 'call_2', arguments: '{}' }),
      entry('response_item', { type: 'custom_tool_call', call_id: 'call_3', name: 'apply_patch', input: '*** Begin Patch' }),
      entry('response_item', { type: 'custom_tool_call_output', call_id: 'call_3', output: [{ type: 'input_text', text: 'Success.' }] }),
      entry('token_usage_record', { usage: { input_tokens: 11 } }),
    ]);
    const tally = new UnreadableTally();
    const chunks = await new CodexRollout(sessions, 'workspace', tally).read(thread);
    expect(chunks).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'exec_command', input: { cmd: 'cat README.md' } },
      { type: 'tool_result', id: 'call_1', output: 'Process exited with code 0\nOutput:\n# project\n' },
      { type: 'tool_call', id: 'call_3', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'tool_result', id: 'call_3', output: 'Success.' },
    ]);
    expect(tally.summary()).toEqual({ count: 2, first: 'not JSON: a torn line that is not JSON' });
  });

  it('names the item and the field of the wrong shape', async () => {
    const { sessions } = rolloutOf([entry('response_item', { type: 'function_call', name: 42, call_id: 'call_2', arguments: '{}' })]);
    const tally = new UnreadableTally();
    expect(await new CodexRollout(sessions, 'workspace', tally).read(thread)).toEqual([]);
    expect(tally.summary()?.first).toMatch(/^rollout "function_call" item with name of the wrong shape/);
  });
});
