import { performance } from 'node:perf_hooks';
import type { AttemptResult } from '../../attempt-protocol.js';
import { attemptCloser } from '../../attempt-closer.js';
import { deferIfWorthWaiting } from '../deferred-start.js';
import type { AttemptThread } from '../worker-kind.js';
import { execFinishedEvent, execStartedEvent, spillStreams } from './exec-records.js';
import { runExec } from './exec.js';
import type { ExecTask } from './exec.js';
import { LiveOutput } from './live-output.js';

/**
 * One exec attempt inside a worker thread, with its records: `node_started` (with the child's
 * group id) once the child is forked and before it runs, its output as it comes, then the
 * terminal record with both streams, whatever the outcome.
 */
export async function runExecAttempt(task: ExecTask, thread: AttemptThread): Promise<AttemptResult> {
  const { store, checkout, notify, threadId } = thread;
  const attemptId = task.attempt.id;
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  let spawnedPid: number | undefined;
  let recorded = false;
  const live = new LiveOutput(
    { runId: task.runId, conversationId: task.conversationId, path: task.path, nodeId: task.nodeId, attemptId },
    (events) => store.appendEvents(events),
  );
  const outcome = await runExec(task, {
    signal: thread.signal,
    onOutput: (stream, chunk) => live.push(stream, chunk),
    // The child waits at its gate until its node_started row (with the pid) is committed, so a
    // crash at any moment leaves no process that a later supervisor cannot find and kill. A
    // failed write kills the waiting child and throws out of runExec.
    async onSpawned(pid) {
      spawnedPid = pid;
      notify({ type: 'spawned', attemptId, pid, threadId });
      await store.appendEvents([execStartedEvent(task, startedAt, pid, checkout)]);
      recorded = true;
    },
  })
    .catch((err: unknown) => (recorded ? Promise.reject(err) : deferIfWorthWaiting(err)))
    .finally(async () => {
      await live.stop();
      if (spawnedPid !== undefined) notify({ type: 'exited', attemptId });
    });
  const durationMs = performance.now() - t0;
  const result: AttemptResult = { ...outcome, startedAt, durationMs, ...(checkout !== undefined ? { checkoutStart: checkout } : {}) };

  // Stopped before it spawned: nothing ran, so nothing is recorded.
  if (outcome.status === 'cancelled' && spawnedPid === undefined) return { ...result, status: 'not_started' };
  // Both streams are kept whatever the outcome: a failure's stdout and a success's stderr too.
  const finished = execFinishedEvent(task, startedAt, result, await spillStreams(task, result));
  // Attempts that never spawned (missing runtime, bad cwd) get their start and end at once.
  // The attempt's closer decides: a late close (the pool took the attempt over) writes nothing.
  const closing = spawnedPid === undefined ? [execStartedEvent(task, startedAt, undefined, checkout), finished] : [finished];
  // A program that ran to its own end may have its end held, to share the commit of the thread's
  // next write (the next node's start); a stopped or lost one is recorded at once.
  const holds = task.holdEnd === true && thread.heldEnds !== undefined && spawnedPid !== undefined && !result.interrupted &&
    (result.status === 'completed' || result.status === 'failed');
  if (holds) {
    await thread.heldEnds!.hold(attemptId, (via) => attemptCloser(store).close('thread', closing, { persist: true, via }));
    return { ...result, heldEnd: finished };
  }
  await attemptCloser(store).close('thread', closing, { persist: true });
  return result;
}
