// A node kind that lives only in the tests, the worker's side (its supervisor side is kind.ts).
// Plain JavaScript over the built modules: Piscina threads load JavaScript, as the real thread
// entry does from dist/ (`npm run build` first).
// @ts-check
import { z } from 'zod';
import { attemptEndedEvent, attemptStartedEvent } from '../../../../dist/records/index.js';
import { attemptTaskShape } from '../../../../dist/worker/attempt-protocol.js';
import { attemptRefOf } from '../../../../dist/worker/attempt-ref.js';
import { attemptCloser } from '../../../../dist/worker/attempt-closer.js';

const shoutTaskSchema = z.object({
  ...attemptTaskShape,
  kind: z.literal('shout'),
  /** The node's record descriptor, as planned. */
  node: z.looseObject({ id: z.string(), kind: z.string() }),
  /** The text, references filled in by the supervisor side. */
  text: z.string(),
});

/** @type {import('../../../../src/worker/nodes/worker-kind.js').WorkerKind<any>} */
export const shoutWorkerKind = {
  kind: 'shout',
  taskSchema: shoutTaskSchema,
  async run(task, thread) {
    const startedAt = new Date().toISOString();
    const ref = attemptRefOf(task, task.node, startedAt, thread.checkout);
    await thread.store.appendEvents([attemptStartedEvent(ref)]);
    const output = task.text.toUpperCase();
    await attemptCloser(thread.store).close('thread', [attemptEndedEvent(ref, { status: 'completed', output: { text: output } }, 0)], { persist: true });
    return { status: 'completed', output, startedAt, durationMs: 0, exitCode: null, signal: null };
  },
  closedEvent: (task, startedAt, result) =>
    attemptEndedEvent(attemptRefOf(task, task.node, startedAt), { status: 'failed', error: result.error ?? 'closed by the pool', failureKind: 'transient' }),
};
