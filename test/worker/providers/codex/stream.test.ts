import { describe, expect, it } from 'vitest';
import { CodexStreamState } from '../../../../src/worker/providers/codex/stream.js';

/**
 * `codex exec --json` events read through their schemas: fields and event or item types Cairn
 * does not know pass, and what it cannot read is counted with the first such line (the attempt's
 * end carries it to `diagnostics.unreadableLines`).
 */

describe("Codex's exec --json stream, read through schemas", () => {
  it('reads the known fields of events with unknown ones, skips unknown types, and counts a line that is not JSON and an event of the wrong shape', () => {
    const state = new CodexStreamState();
    const lines = [
      JSON.stringify({ type: 'thread.started', thread_id: 'th-1', origin: 'tomorrow' }),
      JSON.stringify({ type: 'turn.started' }),
      '2026-01-01T00:00:00Z WARN codex_core: not a JSON line',
      JSON.stringify({ type: 'item.completed', item: { id: 'i0', type: 'reasoning', text: 'thinking…', summary_parts: [] } }),
      JSON.stringify({ type: 'item.completed', item: { id: 'i1', type: 'agent_message', text: 'done', annotations: [] } }),
      JSON.stringify({ type: 'item.completed', item: { id: 'i2', type: 'web_search', query: 'x' } }),
      JSON.stringify({ type: 'item.completed', item: { id: 'i3', type: 'agent_message', text: { parts: ['x'] } } }),
      JSON.stringify({ type: 'item.started_v2', anything: true }),
      JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 2, reasoning_output_tokens: 1 } }),
    ];
    const chunks = lines.flatMap((line) => state.read(line));
    expect(chunks).toEqual([
      { type: 'session', sessionId: 'th-1' },
      { type: 'thinking', text: 'thinking…' },
      { type: 'text', text: 'done' },
    ]);
    expect(state.lastMessage).toBe('done');
    expect(state.finished).toBe(true);
    expect(state.observations.tokens).toEqual({ input: 10, output: 2, cacheRead: 4 });
    const unreadable = state.unreadable.summary();
    expect(unreadable?.count).toBe(2);
    expect(unreadable?.first).toBe('not JSON: 2026-01-01T00:00:00Z WARN codex_core: not a JSON line');
  });

  it('names the event and the field of the wrong shape, and keeps its fallback for a failed turn', () => {
    const state = new CodexStreamState();
    state.read(JSON.stringify({ type: 'turn.failed', error: 'a bare string' }));
    expect(state.errorMessage).toBe('the turn failed');
    expect(state.unreadable.summary()).toEqual({ count: 1, first: expect.stringMatching(/^"turn.failed" event with error of the wrong shape/) });
  });

  it('counts nothing for a stream it read whole', () => {
    const state = new CodexStreamState();
    state.read(JSON.stringify({ type: 'thread.started', thread_id: 'th-2' }));
    state.read('');
    state.read(JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } }));
    expect(state.unreadable.summary()).toBeUndefined();
  });
});
