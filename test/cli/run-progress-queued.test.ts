import { expect, it } from 'vitest';
import { toStreamPayload } from '../../src/api/sse/frames.js';
import { createRunProgress } from '../../src/cli/run-progress.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import { createStyle } from '../../src/terminal/format.js';
import { streamPayloadSchema } from '../../src/wire/stream-frames.js';

/**
 * A node waiting in line, as `cairn workflow run` prints it live: from the event the engine
 * writes, through the SSE frame, to the line naming the line it waits in and its place there.
 */

const runId = 'run-1';
let seq = 0;

function frameOf(eventType: string, node: string, data: Record<string, unknown>) {
  const event: RunEvent = {
    run_id: runId, conversation_id: 'conv-1', event_type: eventType, step_name: node, data, seq: ++seq, created_at: '2024-01-01T00:00:01.000Z',
  };
  // Through JSON and the wire schema, as the CLI receives it.
  return streamPayloadSchema.parse(JSON.parse(JSON.stringify(toStreamPayload(event, 'wf'))));
}

it('prints each place a node waits at, in the global line or its provider’s', () => {
  let text = '';
  const progress = createRunProgress({ runId, out: { write: (chunk: string) => (text += chunk) }, style: createStyle(false) });
  for (const frame of [
    frameOf('global_queued', 'build', { node_id: 'build', position: 3, limit: 2 }),
    frameOf('global_queued', 'build', { node_id: 'build', position: 1, limit: 2 }),
    frameOf('provider_queued', 'ask', { node_id: 'ask', provider: 'anthropic', position: 2, limit: 1 }),
  ]) {
    expect(frame).toMatchObject({ type: 'workflow_event' });
    progress.print(frame);
  }
  expect(text.trimEnd().split('\n').map((line) => line.replace(/\s+/g, ' '))).toEqual([
    'queued build (global limit, position 3)',
    'queued build (global limit, position 1)',
    'queued ask (provider anthropic, position 2)',
  ]);
});
