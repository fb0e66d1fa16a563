import { describe, expect, it } from 'vitest';
import { toStreamPayload } from '../../src/api/sse/frames.js';
import { createStyle } from '../../src/terminal/format.js';
import { createRunProgress } from '../../src/cli/run-progress.js';
import { attemptEndedEvent, type AttemptEnding } from '../../src/records/index.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import { streamPayloadSchema } from '../../src/wire/stream-frames.js';

/**
 * A failed node's live line, from the record through the SSE frame to `cairn workflow run`:
 * cancelled and interrupted attempts are not shown as failures, and a real failure shows the
 * tail of its stderr, not only the first line.
 */

const runId = 'run-1';
let seq = 0;

function frameOf(nodeId: string, ending: AttemptEnding) {
  const draft = attemptEndedEvent(
    {
      runId,
      conversationId: 'conv-1',
      path: nodeId,
      node: { id: nodeId, kind: 'exec', runtime: 'sh' },
      invocation: { id: 'inv-1', startedAt: '2024-01-01T00:00:00.000Z', loopPath: [] },
      attemptId: `att-${nodeId}`,
      startedAt: '2024-01-01T00:00:00.000Z',
    },
    ending,
    1200,
  );
  const event: RunEvent = { ...draft, step_name: draft.step_name ?? null, seq: ++seq, created_at: '2024-01-01T00:00:01.200Z' };
  // Through JSON and the wire schema, as the CLI receives it.
  return streamPayloadSchema.parse(JSON.parse(JSON.stringify(toStreamPayload(event, 'wf'))));
}

function printed(...frames: ReturnType<typeof frameOf>[]): string[] {
  let text = '';
  const progress = createRunProgress({ runId, out: { write: (chunk: string) => (text += chunk) }, style: createStyle(false) });
  for (const frame of frames) progress.print(frame);
  return text.trimEnd().split('\n');
}

describe('failed node frames', () => {
  it('carry failureKind and interrupted from the record', () => {
    const frame = frameOf('a', { status: 'failed', error: 'stopped', failureKind: 'transient', interrupted: true });
    expect(frame).toMatchObject({ type: 'dag_node', status: 'failed', failureKind: 'transient', interrupted: true });
    const plain = frameOf('b', { status: 'failed', error: 'exit code 1', failureKind: 'exec_failed' });
    expect(plain).toMatchObject({ failureKind: 'exec_failed' });
    expect(plain).not.toHaveProperty('interrupted');
  });

  it('print cancelled and interrupted attempts as such, not as failed', () => {
    const lines = printed(
      frameOf('cut', { status: 'failed', error: 'cancelled by the user', failureKind: 'cancelled' }),
      frameOf('paused', { status: 'failed', error: 'interrupted by a shutdown', failureKind: 'transient', interrupted: true }),
    );
    expect(lines[0]).toMatch(/^cancelled\s+cut/);
    expect(lines[1]).toMatch(/^stopped\s+paused .*interrupted by a shutdown/);
    expect(lines.join('\n')).not.toMatch(/failed/);
  });

  it('print the first line of a failure and the tail of its stderr below it', () => {
    const stderr = Array.from({ length: 30 }, (_, i) => `trace ${i}`).join('\n');
    const lines = printed(frameOf('build', { status: 'failed', error: `exit code 2: ${stderr}`, failureKind: 'exec_failed' }));
    expect(lines[0]).toMatch(/^failed\s+build \(1\.2s\): exit code 2: trace 0$/);
    expect(lines.slice(1).map((l) => l.trim())).toEqual(Array.from({ length: 10 }, (_, i) => `trace ${20 + i}`));
  });
});
