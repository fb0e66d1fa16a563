// A node kind that lives only in the tests, the worker's side (its supervisor side is kind.ts).
import { z } from 'zod';
import { attemptEndedEvent, attemptStartedEvent } from '../../../../src/records/index.js';
import { attemptTaskShape } from '../../../../src/worker/attempt-protocol.js';
import { attemptCloser } from '../../../../src/worker/attempt-closer.js';
import { attemptRefOf } from '../../../../src/worker/attempt-ref.js';
import type { NodeDescriptor } from '../../../../src/records/schemas/node-descriptor.js';
import type { WorkerKind } from '../../../../src/worker/nodes/worker-kind.js';

const shoutTaskSchema = z.object({
  ...attemptTaskShape,
  kind: z.literal('shout'),
  /** The node's record descriptor, as planned. */
  node: z.looseObject({ id: z.string(), kind: z.string() }),
  /** The text, references filled in by the supervisor side. */
  text: z.string(),
});

/**
 * The node as its records describe it. The records' descriptor type lists the built-in kinds
 * (what the record readers and the contract know); a test kind's records carry its own.
 */
const descriptorOf = (task: z.infer<typeof shoutTaskSchema>) => task.node as unknown as NodeDescriptor;

export const shoutWorkerKind: WorkerKind<z.infer<typeof shoutTaskSchema>> = {
  kind: 'shout',
  taskSchema: shoutTaskSchema,
  async run(task, thread) {
    const startedAt = new Date().toISOString();
    const ref = attemptRefOf(task, descriptorOf(task), startedAt, thread.checkout);
    await thread.store.appendEvents([attemptStartedEvent(ref)]);
    const output = task.text.toUpperCase();
    await attemptCloser(thread.store).close('thread', [attemptEndedEvent(ref, { status: 'completed', output: { text: output } }, 0)], { persist: true });
    return { status: 'completed', output, startedAt, durationMs: 0, exitCode: null, signal: null };
  },
  closedEvent: (task, startedAt, result) =>
    attemptEndedEvent(attemptRefOf(task, descriptorOf(task), startedAt), { status: 'failed', error: result.error ?? 'closed by the pool', failureKind: 'transient' }),
};
