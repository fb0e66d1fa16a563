import type { WorkerKind } from '../worker-kind.js';
import { runExecAttempt } from './exec-attempt.js';
import { execFinishedEvent } from './exec-records.js';
import { execAttemptTaskSchema } from './exec-task.js';
import type { ExecTask } from './exec.js';

/** `bash:` and `script:` nodes on a worker thread: the body runs as a child process group. */
export const execWorkerKind: WorkerKind<ExecTask> = {
  kind: 'exec',
  taskSchema: execAttemptTaskSchema,
  run: runExecAttempt,
  closedEvent: (task, startedAt, result) => execFinishedEvent(task, startedAt, result),
};
