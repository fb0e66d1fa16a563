// A worker kind that lives only in the attempt-closer test: its attempt ends its own thread, either
// just after its close committed (`when: 'after-close'`) or before it closed (`when: 'before-close'`),
// the two sides of a thread that dies mid-close.
import { z } from 'zod';
import { attemptEndedEvent, attemptStartedEvent } from '../../../src/records/index.js';
import type { NodeDescriptor } from '../../../src/records/schemas/node-descriptor.js';
import { attemptTaskShape } from '../../../src/worker/attempt-protocol.js';
import { attemptRefOf } from '../../../src/worker/attempt-ref.js';
import { attemptCloser } from '../../../src/worker/attempt-closer.js';
import type { WorkerKind } from '../../../src/worker/nodes/worker-kind.js';

const dieTaskSchema = z.object({
  ...attemptTaskShape,
  kind: z.literal('die'),
  node: z.looseObject({ id: z.string(), kind: z.string() }),
  when: z.enum(['after-close', 'before-close']),
});

/** The node as its records describe it (the records' descriptor type lists the built-in kinds). */
const descriptorOf = (task: z.infer<typeof dieTaskSchema>) => task.node as unknown as NodeDescriptor;

export const dieWorkerKind: WorkerKind<z.infer<typeof dieTaskSchema>> = {
  kind: 'die',
  taskSchema: dieTaskSchema,
  async run(task, thread) {
    const startedAt = new Date().toISOString();
    const ref = attemptRefOf(task, descriptorOf(task), startedAt);
    await thread.store.appendEvents([attemptStartedEvent(ref)]);
    if (task.when === 'after-close') {
      await attemptCloser(thread.store).close('thread', [attemptEndedEvent(ref, { status: 'completed', output: { text: 'done' } }, 0)]);
    }
    // The thread ends before it answers the pool.
    process.exit(1);
  },
  closedEvent: (task, startedAt, result) =>
    attemptEndedEvent(attemptRefOf(task, descriptorOf(task), startedAt), { status: 'failed', error: result.error ?? 'closed by the pool', failureKind: 'transient' }),
};
