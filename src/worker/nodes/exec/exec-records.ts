import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  attemptEndedEvent,
  attemptStartedEvent,
  previewOutput,
  type AttemptEnding,
  type AttemptRef,
  type OutputInput,
  type StreamInput,
} from '../../../records/index.js';
import type { CheckoutObservation } from '../../../records/schemas/checkout-observation.js';
import type { FailureKind } from '../../../records/schemas/node-lifecycle.js';
import type { NewRunEvent } from '../../../store/schemas/event.js';
import type { AttemptResult } from '../../attempt-protocol.js';
import type { ExecAttemptTask as AttemptTask } from './exec-task.js';
import { attemptRefOf } from '../../attempt-ref.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../../shared/private-files.js';
import { fileNameFor } from '../../../shared/file-name.js';

/**
 * The events of an exec attempt, through the records module's one attempt factory. An exec node
 * calls no provider: its binding is empty, every measured value is `unavailable` /
 * `not_applicable`, and it accounts for its own (nil) spend. Used by the thread that runs the
 * attempt and by the pool when it has to close an attempt its thread could not.
 */

/** Which attempt a task is, for its records (worker/attempt-ref.ts). */
function execRefOf(
  task: Pick<AttemptTask, 'runId' | 'conversationId' | 'path' | 'nodeId' | 'runtime' | 'invocation' | 'attempt'>,
  startedAt: string,
  checkout?: CheckoutObservation,
): AttemptRef {
  return attemptRefOf(task, { id: task.nodeId, kind: 'exec', runtime: task.runtime }, startedAt, checkout);
}

/** `node_started`, with the child's process group id so a later supervisor can kill an orphan. */
export function execStartedEvent(task: AttemptTask, startedAt: string, pid: number | undefined, checkout?: CheckoutObservation): NewRunEvent {
  return attemptStartedEvent(execRefOf(task, startedAt, checkout), pid !== undefined ? { pid } : {});
}

/** Where an attempt's streams were spilled (each only when longer than an event row's preview). */
export interface SpillPaths {
  stdout?: string;
  stderr?: string;
}

/**
 * `node_completed` with the output, or `node_failed` with the error (a stopped attempt is a
 * failure); either way with what the attempt printed on both streams.
 */
export function execFinishedEvent(
  task: AttemptTask,
  startedAt: string,
  result: AttemptResult,
  spill: SpillPaths = {},
): NewRunEvent {
  const ending = endingOf(result, spill);
  const diagnostics = task.diagnostics;
  return attemptEndedEvent(execRefOf(task, startedAt, result.checkoutStart), diagnostics ? { ...ending, diagnostics } : ending, result.durationMs);
}

/** A spill file's name: `.out` for stdout, `.err` for stderr. */
export type SpillStream = 'out' | 'err';

/**
 * Writes a stream longer than an event row's preview to a file under the task's spill
 * directory and returns its path, so the record can name it; undefined when the preview holds
 * all of it. One file per attempt and stream, so a retry never overwrites what an earlier
 * attempt produced.
 */
export async function spillLongOutput(
  task: Pick<AttemptTask, 'outputSpillDir' | 'path' | 'attempt'>,
  output: string,
  stream: SpillStream = 'out',
): Promise<string | undefined> {
  if (!previewOutput(output).truncated) return undefined;
  const dir = join(task.outputSpillDir, fileNameFor(task.path));
  await makePrivateDir(dir);
  const file = join(dir, `${task.attempt.id}.${stream}`);
  await writeFile(file, output, { mode: PRIVATE_FILE_MODE });
  return file;
}

/** Spills both streams of a finished attempt as needed. */
export async function spillStreams(task: Pick<AttemptTask, 'outputSpillDir' | 'path' | 'attempt'>, result: AttemptResult): Promise<SpillPaths> {
  const [stdout, stderr] = await Promise.all([
    spillLongOutput(task, result.output, 'out'),
    result.stderr !== undefined ? spillLongOutput(task, result.stderr, 'err') : undefined,
  ]);
  return { ...(stdout !== undefined ? { stdout } : {}), ...(stderr !== undefined ? { stderr } : {}) };
}

function endingOf(result: AttemptResult, spill: SpillPaths): AttemptEnding {
  const stderr = stderrOf(result, spill.stderr);
  const streams = stderr !== undefined ? { stderr } : {};
  if (result.status === 'completed') return { status: 'completed', output: outputOf(result, spill.stdout), ...streams };
  // A failure keeps what it printed (for its logs; a failed row's output is never reused).
  const printed = result.output !== '' || result.outputTruncated ? { output: outputOf(result, spill.stdout) } : {};
  return {
    status: 'failed',
    ...printed,
    ...streams,
    error: result.error ?? `exec attempt ${result.status}`,
    ...(result.retryable === false ? { retryable: false } : {}),
    ...(result.failureKind !== undefined ? { failureKind: result.failureKind as FailureKind } : {}),
    ...(result.interrupted ? { interrupted: true } : {}),
  };
}

function stderrOf(result: AttemptResult, spillPath: string | undefined): StreamInput | undefined {
  if (result.stderr === undefined) return undefined;
  return {
    text: result.stderr,
    ...(spillPath !== undefined ? { spillPath } : {}),
    ...(result.stderrTruncated ? { capturedBytes: result.stderrBytes ?? Buffer.byteLength(result.stderr) } : {}),
  };
}

/** The output; when the worker kept only the head of stdout, the record says how long it really was. */
function outputOf(result: AttemptResult, spillPath: string | undefined): OutputInput {
  if (!result.outputTruncated) return { text: result.output, ...(spillPath !== undefined ? { spillPath } : {}) };
  // Past the worker's capture cap: even the spill holds only the head; the record says so.
  return {
    text: result.output,
    persisted: {
      text: previewOutput(result.output).text,
      truncated: true,
      ...(result.outputBytes !== undefined ? { originalBytes: result.outputBytes } : {}),
      ...(spillPath !== undefined ? { spillPath } : {}),
    },
  };
}
