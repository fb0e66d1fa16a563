import type { NewRunEvent } from '../../store/schemas/event.js';
import type { AttemptResult, AttemptTask } from '../attempt-protocol.js';
import { agentFinishedEvent } from '../nodes/agent/agent-records.js';
import { execFinishedEvent } from '../nodes/exec/exec-records.js';

/**
 * The terminal record the pool writes for an attempt its thread could not close (the thread
 * died, or did not confirm a cancel in time), by the attempt's kind. An AI attempt closed here
 * keeps the spend availability it started with: what the provider reported died with the thread.
 */
export function attemptClosedEvent(task: AttemptTask, startedAt: string, result: AttemptResult): NewRunEvent {
  if (task.kind === 'agent') return agentFinishedEvent(task, startedAt, result, undefined, undefined);
  return execFinishedEvent(task, startedAt, result);
}
