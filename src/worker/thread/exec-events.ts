import {
  buildExecutionRecord,
  completedState,
  failedState,
  markInterrupted,
  nodeEventOf,
  notApplicableSpend,
  previewOutput,
  startedState,
  type ExecutionRecordInput,
  type OutputInput,
} from '../../records/index.js';
import type { AttemptResult } from '../attempt-protocol.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { FailureKind } from '../../records/schemas/node-lifecycle.js';
import type { ExecTask } from '../nodes/exec/exec.js';

/**
 * The events of an exec attempt. An exec node calls no provider: its binding is empty, every
 * measured value is `unavailable` / `not_applicable`, and it accounts for its own (nil) spend.
 */

/** `node_started`, with the child's process group id so a later supervisor can kill an orphan. */
export function execStartedEvent(task: ExecTask, startedAt: string, pid: number | undefined): NewRunEvent {
  const record = buildExecutionRecord({ ...recordBase(task, startedAt), lifecycle: startedState() });
  return { ...nodeEventOf(record, pid !== undefined ? { pid } : {}), conversation_id: task.conversationId };
}

/** `node_completed` with the output, or `node_failed` with the error (a stopped attempt is a failure). */
export function execFinishedEvent(task: ExecTask, startedAt: string, result: AttemptResult): NewRunEvent {
  const base = recordBase(task, startedAt, result.durationMs);
  const record =
    result.status === 'completed'
      ? buildExecutionRecord({ ...base, lifecycle: completedState(), output: outputOf(result) })
      : buildExecutionRecord({
          ...base,
          lifecycle: failedState(result.error ?? `exec attempt ${result.status}`, {
            ...(result.retryable === false ? { retryable: false as const } : {}),
            ...(result.failureKind !== undefined ? { failureKind: result.failureKind as FailureKind } : {}),
          }),
        });
  const event: NewRunEvent = { ...nodeEventOf(record), conversation_id: task.conversationId };
  return result.interrupted ? markInterrupted(event) : event;
}

function recordBase(task: ExecTask, startedAt: string, durationMs?: number): Omit<ExecutionRecordInput, 'lifecycle'> {
  return {
    runId: task.runId,
    path: task.path,
    node: { id: task.nodeId, kind: 'exec', runtime: task.runtime },
    invocation: task.invocation,
    attempt: { id: task.attempt.id, startedAt },
    timing: durationMs === undefined ? { startedAt } : { startedAt, durationMs },
    spend: notApplicableSpend(),
    accounting: 'node',
  };
}

/** The output; when the worker kept only the head of stdout, the record says how long it really was. */
function outputOf(result: AttemptResult): OutputInput {
  if (!result.outputTruncated) return { text: result.output };
  return {
    text: result.output,
    persisted: {
      text: previewOutput(result.output).text,
      truncated: true,
      ...(result.outputBytes !== undefined ? { originalBytes: result.outputBytes } : {}),
    },
  };
}
