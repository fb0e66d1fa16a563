import {
  attemptEndedEvent,
  attemptStartedEvent,
  finishResolvedModel,
  finishSpend,
  initialResolvedModel,
  initialSpend,
  notApplicableSpend,
  unavailable,
  type AttemptEnding,
  type AttemptRef,
  type OutputInput,
} from '../../../records/index.js';
import type { CheckoutObservation } from '../../../records/schemas/checkout-observation.js';
import type { Binding, SessionOrigin } from '../../../records/schemas/execution-record.js';
import type { FailureKind } from '../../../records/schemas/node-lifecycle.js';
import type { Spend } from '../../../records/schemas/node-spend.js';
import { getProvider } from '../../../shared/providers/registry.js';
import type { NewRunEvent } from '../../../store/schemas/event.js';
import { attemptRefOf } from '../../attempt-ref.js';
import type { AttemptResult } from '../../attempt-protocol.js';
import type { AgentAttemptTask } from './agent-task.js';
import type { ProviderChunk, ProviderEnd } from '../../providers/provider-adapter.js';

/**
 * The events of an AI attempt, through the records module's one attempt factory: `node_started`
 * with the binding and the spend each measurement starts from (the provider's declared
 * capabilities), and the terminal record with what the provider reported. Between them, the
 * chunks worth keeping (agent-activity.ts): text, thinking, tool calls and results, rate-limit notices.
 */

type TaskFacts = Pick<
  AgentAttemptTask,
  'runId' | 'conversationId' | 'path' | 'nodeId' | 'source' | 'invocation' | 'attempt' | 'provider' | 'model' | 'effort' | 'diagnostics' | 'resumeSessionId' | 'options' | 'sessionSource'
>;

function reportsOf(task: TaskFacts) {
  return getProvider(task.provider)!.capabilities.reports;
}

/** Which attempt a task is, for its records (worker/attempt-ref.ts), with the binding and spend it carries. */
function refOf(task: TaskFacts, startedAt: string, extra: Partial<AttemptRef> = {}, checkout?: CheckoutObservation): AttemptRef {
  return { ...attemptRefOf(task, { id: task.nodeId, kind: 'agent', source: task.source }, startedAt, checkout), ...extra };
}

/**
 * The binding; before the provider has said anything (no `end`) the resolved model starts
 * unavailable and the session origin is the attempt's intent: `resumed` when it is to continue
 * the session its node's failed attempt left, else `fresh` (sessions are never shared between
 * runs). The provider's end says what happened (`resume-failed-cold` when the session was gone);
 * an attempt closed without its word keeps the intent.
 */
function bindingOf(task: TaskFacts, resolved = initialResolvedModel(reportsOf(task)), end?: { sessionId?: string; sessionOrigin?: SessionOrigin }): Binding {
  const session = end?.sessionId;
  const intended = task.resumeSessionId !== undefined ? 'resumed' : 'fresh';
  return {
    provider: task.provider,
    model: { ...(task.model !== undefined ? { requested: task.model } : {}), resolved },
    ...(task.effort !== undefined ? { effort: task.effort } : {}),
    sessionOrigin: end?.sessionOrigin ?? intended,
    ...(session !== undefined ? { sessionPreview: sessionPreviewOf(session) } : {}),
    permissions: task.options.permissions,
  };
}

/** Display only: enough to tell sessions apart, never the whole id (at most 8 characters, and at most half of a short id). */
function sessionPreviewOf(session: string): string {
  return `${session.slice(0, Math.min(8, Math.floor(session.length / 2)))}…`;
}

/**
 * `node_started`, with the CLI's process group when one was spawned. `origin` is what is already
 * known of the session when it is not the intent (a CLI run again cold within the attempt).
 */
export function agentStartedEvent(task: TaskFacts, startedAt: string, pid: number | undefined, checkout?: CheckoutObservation, origin?: SessionOrigin): NewRunEvent {
  const binding = bindingOf(task, undefined, origin !== undefined ? { sessionOrigin: origin } : undefined);
  const ref = refOf(task, startedAt, { binding, spend: initialSpend(reportsOf(task)) }, checkout);
  return attemptStartedEvent(ref, pid !== undefined ? { pid } : {});
}

/** Spend when the attempt ended: `not_applicable` if no call reached the provider. */
export function spendOf(task: TaskFacts, end: ProviderEnd | undefined): Spend {
  if (end === undefined) return initialSpend(reportsOf(task));
  if (!end.called) return notApplicableSpend();
  return finishSpend(initialSpend(reportsOf(task)), end.observations);
}

/** The terminal record. `end` is what the provider said; undefined when the pool closes an attempt its thread could not. */
export function agentFinishedEvent(
  task: TaskFacts,
  startedAt: string,
  result: AttemptResult,
  end: ProviderEnd | undefined,
  output: OutputInput | undefined,
  toolCalls?: ToolCallTally,
  reasked?: readonly string[],
): NewRunEvent {
  const resolved =
    end === undefined
      ? initialResolvedModel(reportsOf(task))
      : end.called
        ? finishResolvedModel(initialResolvedModel(reportsOf(task)), end.resolvedModel)
        : unavailable('not_applicable');
  const ref = refOf(
    task,
    startedAt,
    {
      binding: bindingOf(task, resolved, end),
      spend: spendOf(task, end),
      ...(end?.sessionId !== undefined ? { sessionId: end.sessionId } : {}),
    },
    result.checkoutStart,
  );
  const ending = endingOf(result, output);
  const diagnostics = {
    ...task.diagnostics,
    ...sessionSourceDiagnostics(task, end),
    ...(toolCalls && toolCalls.total > 0 ? { toolCalls: toolCalls.summary() } : {}),
    ...(reasked && reasked.length > 0 ? { structuredReasks: reasked.map((problem) => cut(problem, REASK_TEXT_MAX)) } : {}),
    ...(end?.unreadableLines !== undefined ? { unreadableLines: { count: end.unreadableLines.count, first: cut(end.unreadableLines.first, UNREADABLE_SAMPLE_MAX) } } : {}),
  };
  return attemptEndedEvent(ref, Object.keys(diagnostics).length > 0 ? { ...ending, diagnostics } : ending, result.durationMs);
}

/** A session continued from another node: which, whether a fork was asked, and whether one was made (the provider named another session). */
function sessionSourceDiagnostics(task: TaskFacts, end: ProviderEnd | undefined) {
  const source = task.sessionSource;
  if (source === undefined) return {};
  const forked = end?.sessionId !== undefined && end.sessionOrigin !== 'resume-failed-cold' ? end.sessionId !== task.resumeSessionId : undefined;
  return {
    sessionSourceNodeId: source.nodeId,
    sessionForkRequested: source.fork,
    ...(forked !== undefined ? { sessionForked: forked } : {}),
  };
}

function endingOf(result: AttemptResult, output: OutputInput | undefined): AttemptEnding {
  if (result.status === 'completed') return { status: 'completed', output: output ?? { text: result.output } };
  return {
    status: 'failed',
    ...(result.output !== '' ? { output: output ?? { text: result.output } } : {}),
    error: result.error ?? `agent attempt ${result.status}`,
    ...(result.retryable === false ? { retryable: false } : {}),
    ...(result.failureKind !== undefined ? { failureKind: result.failureKind as FailureKind } : {}),
    ...(result.interrupted ? { interrupted: true } : {}),
    ...(result.providerFailure !== undefined ? { providerFailure: result.providerFailure } : {}),
  };
}

/** Longest text kept of why an answer was asked again. */
const REASK_TEXT_MAX = 500;

/** Longest sample kept of a line of the provider's stream its reader could not read. */
const UNREADABLE_SAMPLE_MAX = 300;

/** Refusals kept by name in the record; the count goes on. */
const REFUSALS_KEPT = 20;
/** Longest refusal text kept in the record. */
const REFUSAL_TEXT_MAX = 300;

/**
 * The tool calls of one attempt: each call's tool by its id (so a result names its tool), and
 * how the results went. Its summary is the record's `diagnostics.toolCalls`.
 */
export class ToolCallTally {
  private readonly names = new Map<string, string>();
  private readonly refusals: { tool?: string; reason: string }[] = [];
  total = 0;
  failed = 0;
  refused = 0;

  /** Notes a chunk; answers the tool a result belongs to, when its call named it. */
  see(chunk: ProviderChunk): string | undefined {
    if (chunk.type === 'tool_call') {
      if (chunk.id !== undefined) this.names.set(chunk.id, chunk.name);
      return chunk.name;
    }
    if (chunk.type !== 'tool_result') return undefined;
    const tool = chunk.id !== undefined ? this.names.get(chunk.id) : undefined;
    this.total += 1;
    if (chunk.refused) {
      this.refused += 1;
      if (this.refusals.length < REFUSALS_KEPT) this.refusals.push({ ...(tool !== undefined ? { tool } : {}), reason: cut(chunk.output, REFUSAL_TEXT_MAX) });
    } else if (chunk.isError) {
      this.failed += 1;
    }
    return tool;
  }

  summary(): { total: number; failed: number; refused: number; refusals?: { tool?: string; reason: string }[] } {
    return { total: this.total, failed: this.failed, refused: this.refused, ...(this.refusals.length > 0 ? { refusals: [...this.refusals] } : {}) };
  }
}

/**
 * The event of a provider's rate-limit or retry notice, or undefined. Text, thinking and tool calls are
 * recorded by agent-activity.ts, batched and capped.
 */
export function chunkEvent(task: Pick<TaskFacts, 'runId' | 'conversationId' | 'path' | 'nodeId' | 'provider'>, chunk: ProviderChunk): NewRunEvent | undefined {
  const base = { run_id: task.runId, conversation_id: task.conversationId, step_name: task.path };
  switch (chunk.type) {
    case 'rate_limit':
      return {
        ...base,
        event_type: 'provider_rate_limited',
        data: {
          node_id: task.nodeId,
          provider: task.provider,
          message: chunk.message,
          ...(chunk.status !== undefined ? { status: chunk.status } : {}),
          ...(chunk.retryAfterMs !== undefined ? { retry_after_ms: chunk.retryAfterMs } : {}),
        },
      };
    case 'retrying':
      return {
        ...base,
        event_type: 'provider_retrying',
        data: {
          node_id: task.nodeId,
          provider: task.provider,
          message: chunk.message,
          attempt: chunk.attempt,
          max_retries: chunk.maxRetries,
          ...(chunk.retryAfterMs !== undefined ? { retry_after_ms: chunk.retryAfterMs } : {}),
        },
      };
    default:
      return undefined;
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
