import { loadOnce } from '../load-once.js';
import type { WorkerKind } from '../worker-kind.js';
import { agentFinishedEvent } from './agent-records.js';
import { agentAttemptTaskSchema } from './agent-task.js';
import type { AgentTask } from './agent.js';

const attemptCode = loadOnce(() => import('./agent-attempt.js'));

/** `prompt:` and `command:` nodes on a worker thread: one watched provider call. */
export const agentWorkerKind: WorkerKind<AgentTask> = {
  kind: 'agent',
  taskSchema: agentAttemptTaskSchema,
  // Loaded on the thread's first attempt: the pool (on the supervisor's main thread) reads only
  // the schema and the closing record, and must not load the attempt code with every adapter;
  // kept once loaded (load-once.ts).
  run: async (task, thread) => (await attemptCode()).runAgentAttempt(task, thread),
  // Closed here, an AI attempt keeps the spend availability it started with: what the provider reported died with the thread.
  closedEvent: (task, startedAt, result) => agentFinishedEvent(task, startedAt, result, undefined, undefined),
};
