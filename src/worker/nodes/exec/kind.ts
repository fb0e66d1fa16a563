import { loadOnce } from '../load-once.js';
import type { WorkerKind } from '../worker-kind.js';
import { execFinishedEvent } from './exec-records.js';
import { execAttemptTaskSchema } from './exec-task.js';
import type { ExecTask } from './exec.js';

const attemptCode = loadOnce(() => import('./exec-attempt.js'));

/** `bash:` and `script:` nodes on a worker thread: the body runs as a child process group. */
export const execWorkerKind: WorkerKind<ExecTask> = {
  kind: 'exec',
  taskSchema: execAttemptTaskSchema,
  // Loaded on the thread's first attempt: the pool (on the supervisor's main thread) reads only
  // the schema and the closing record, and must not load the attempt code with every adapter;
  // kept once loaded (load-once.ts).
  run: async (task, thread) => (await attemptCode()).runExecAttempt(task, thread),
  closedEvent: (task, startedAt, result) => execFinishedEvent(task, startedAt, result),
};
