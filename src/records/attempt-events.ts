import type { NewRunEvent } from '../store/schemas/event.js';
import { buildExecutionRecord, type ExecutionRecordInput } from './build-record.js';
import { nodeEventOf } from './event-data.js';
import { markInterrupted } from './interrupted.js';
import { completedState, failedState, startedState, suspendedState } from './lifecycle.js';
import type { OutputInput } from './output-preview.js';
import type { CheckoutObservation } from './schemas/checkout-observation.js';
import type { Binding, Diagnostics, Invocation } from './schemas/execution-record.js';
import type { NodeDescriptor } from './schemas/node-descriptor.js';
import type { FailureKind, ProviderFailure, SuspensionPoint } from './schemas/node-lifecycle.js';
import type { Spend } from './schemas/node-spend.js';
import { notApplicableSpend } from './spend.js';
import { persistedStream, STDERR_DATA_KEY, type StreamInput } from './stream-log.js';

/**
 * The one factory of attempt events (`node_started`, and the terminal `node_completed` /
 * `node_failed`). Whoever owns an attempt writes them through here: the worker thread that ran
 * it, the pool when the thread could not, the supervisor for an attempt refused before it
 * reached a worker, and take-over for an attempt whose supervisor died. So a record of one kind
 * is always built one way.
 */

/** Which attempt of which node of which run. */
export interface AttemptRef {
  runId: string;
  conversationId: string;
  /** The node's path in the run (its id for a top-level node). */
  path: string;
  node: NodeDescriptor;
  invocation: Invocation;
  attemptId: string;
  /** When the attempt began (its record's `attempt.startedAt`). */
  startedAt: string;
  /** The checkout as this attempt found it (`attempt.checkoutStart`); the invocation's is on `invocation`. */
  attemptCheckout?: CheckoutObservation;
  /** Provider and model facts of an AI attempt; omitted: no provider (`{}`). */
  binding?: Binding;
  /** The attempt's spend; omitted: no provider call (every value `not_applicable`). */
  spend?: Spend;
  /** The provider's full session id: in the record, never in its public metadata. */
  sessionId?: string;
  /** Whose spend the record carries: `node` (its own, the default), or a fan-out's `aggregate` / `instance` roll-up. */
  accounting?: 'node' | 'aggregate' | 'instance';
}

/**
 * How an attempt ended. A cancelled or interrupted attempt is a failure of kind cancelled/transient.
 * `stderr` is kept next to the record (`data.stderr`); a failure's `output` is what it printed
 * before failing, kept for debugging and never reused as a result.
 */
export type AttemptEnding =
  | { status: 'completed'; output: OutputInput; stderr?: StreamInput; diagnostics?: Diagnostics }
  | {
      status: 'failed';
      diagnostics?: Diagnostics;
      error: string;
      output?: OutputInput;
      stderr?: StreamInput;
      failureKind?: FailureKind;
      /** `false` marks the failure as not retryable; omitted lets the retry policy decide. */
      retryable?: boolean;
      /** Cut short by a shutdown or a supervisor's death: the node runs again later. */
      interrupted?: boolean;
      /** The provider's own account of the failure (AI attempts). */
      providerFailure?: ProviderFailure;
    };

/** `node_started`; `pid` (the child's process group) lets a later supervisor kill an orphan. */
export function attemptStartedEvent(ref: AttemptRef, extras: { pid?: number } = {}): NewRunEvent {
  const record = buildExecutionRecord({ ...recordBase(ref), lifecycle: startedState() });
  return { ...nodeEventOf(record, extras.pid !== undefined ? { pid: extras.pid } : {}), conversation_id: ref.conversationId };
}

/** The attempt's terminal event: `node_completed` with its output, or `node_failed`. The store
 * keeps only the first terminal event of an attempt (`ends_attempt`). */
export function attemptEndedEvent(ref: AttemptRef, ending: AttemptEnding, durationMs?: number): NewRunEvent {
  const base = { ...recordBase(ref, durationMs), ...(ending.diagnostics ? { diagnostics: ending.diagnostics } : {}) };
  if (ending.status === 'completed') {
    const record = buildExecutionRecord({ ...base, lifecycle: completedState(), output: ending.output });
    return withStderr({ ...nodeEventOf(record), conversation_id: ref.conversationId, ends_attempt: ref.attemptId }, ending.stderr);
  }
  const lifecycle = failedState(ending.error, {
    ...(ending.retryable === false ? { retryable: false as const } : {}),
    ...(ending.failureKind !== undefined ? { failureKind: ending.failureKind } : {}),
    ...(ending.providerFailure !== undefined ? { providerFailure: ending.providerFailure } : {}),
  });
  const event: NewRunEvent = {
    ...nodeEventOf(buildExecutionRecord({ ...base, lifecycle, ...(ending.output !== undefined ? { output: ending.output } : {}) })),
    conversation_id: ref.conversationId,
    ends_attempt: ref.attemptId,
  };
  return withStderr(ending.interrupted ? markInterrupted(event) : event, ending.stderr);
}

/**
 * `node_suspended`: the attempt waits at `point` (a gate for a person, a wait for its moment).
 * Not terminal: the same attempt ends later with `node_completed` or `node_failed`. `extra`
 * flat keys sit beside the record (a wait's `wake_at`).
 */
export function attemptSuspendedEvent(
  ref: AttemptRef,
  point: SuspensionPoint,
  opts: { diagnostics?: Diagnostics; extra?: Record<string, unknown> } = {},
): NewRunEvent {
  const record = buildExecutionRecord({
    ...recordBase(ref),
    lifecycle: suspendedState(point),
    ...(opts.diagnostics ? { diagnostics: opts.diagnostics } : {}),
  });
  const event = { ...nodeEventOf(record), conversation_id: ref.conversationId };
  return opts.extra ? { ...event, data: { ...event.data, ...opts.extra } } : event;
}

function withStderr(event: NewRunEvent, stderr: StreamInput | undefined): NewRunEvent {
  if (stderr === undefined) return event;
  return { ...event, data: { ...event.data, [STDERR_DATA_KEY]: persistedStream(stderr) } };
}

function recordBase(ref: AttemptRef, durationMs?: number): Omit<ExecutionRecordInput, 'lifecycle'> {
  return {
    runId: ref.runId,
    path: ref.path,
    node: ref.node,
    invocation: ref.invocation,
    attempt: {
      id: ref.attemptId,
      startedAt: ref.startedAt,
      ...(ref.attemptCheckout !== undefined ? { checkoutStart: ref.attemptCheckout } : {}),
    },
    timing: durationMs === undefined ? { startedAt: ref.startedAt } : { startedAt: ref.startedAt, durationMs },
    spend: ref.spend ?? notApplicableSpend(),
    accounting: ref.accounting ?? 'node',
    ...(ref.binding !== undefined ? { binding: ref.binding } : {}),
    ...(ref.sessionId !== undefined ? { sessionId: ref.sessionId } : {}),
  };
}
