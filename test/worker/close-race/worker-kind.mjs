// A worker kind that lives only in the attempt-closer test: its attempt ends its own thread, either
// just after its close committed (`when: 'after-close'`) or before it closed (`when: 'before-close'`),
// the two sides of a thread that dies mid-close. Plain JavaScript over the built modules
// (`npm run build` first), as Piscina threads load.
// @ts-check
import { z } from 'zod';
import { attemptEndedEvent, attemptStartedEvent } from '../../../dist/records/index.js';
import { attemptTaskShape } from '../../../dist/worker/attempt-protocol.js';
import { attemptRefOf } from '../../../dist/worker/attempt-ref.js';
import { attemptCloser } from '../../../dist/worker/attempt-closer.js';

const dieTaskSchema = z.object({
  ...attemptTaskShape,
  kind: z.literal('die'),
  node: z.looseObject({ id: z.string(), kind: z.string() }),
  when: z.enum(['after-close', 'before-close']),
});

/** @type {import('../../../src/worker/nodes/worker-kind.js').WorkerKind<any>} */
export const dieWorkerKind = {
  kind: 'die',
  taskSchema: dieTaskSchema,
  async run(task, thread) {
    const startedAt = new Date().toISOString();
    const ref = attemptRefOf(task, task.node, startedAt);
    await thread.store.appendEvents([attemptStartedEvent(ref)]);
    if (task.when === 'after-close') {
      await attemptCloser(thread.store).close('thread', [attemptEndedEvent(ref, { status: 'completed', output: { text: 'done' } }, 0)]);
    }
    // The thread ends before it answers the pool.
    process.exit(1);
  },
  closedEvent: (task, startedAt, result) =>
    attemptEndedEvent(attemptRefOf(task, task.node, startedAt), { status: 'failed', error: result.error ?? 'closed by the pool', failureKind: 'transient' }),
};
