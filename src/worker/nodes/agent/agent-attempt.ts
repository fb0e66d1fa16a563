import type { CheckoutObservation } from '../../../records/schemas/checkout-observation.js';
import type { SessionOrigin } from '../../../records/schemas/execution-record.js';
import type { Store } from '../../../store/store.js';
import { getProvider } from '../../../shared/providers/registry.js';
import type { AttemptNotice, AttemptResult } from '../../attempt-protocol.js';
import { adapterFor } from '../../providers/adapters.js';
import { providersResumingSessions } from '../../../shared/providers/available.js';
import type { ProviderAdapter } from '../../providers/provider-adapter.js';
import { spillLongOutput } from '../exec/exec-records.js';
import { runAgent, type AgentOutcome, type AgentTask } from './agent.js';
import { agentFinishedEvent, agentStartedEvent, ToolCallTally } from './agent-records.js';
import { AgentActivity } from './agent-activity.js';
import { attemptCloser } from '../../attempt-closer.js';
import { SecretMask } from '../../../shared/secret-mask.js';
import { withSecretsMasked } from '../../providers/common/masking-adapter.js';
import { lostFailure } from '../../lost-attempt.js';

export interface AgentAttemptDeps {
  store: Store;
  signal: AbortSignal;
  checkout: CheckoutObservation | undefined;
  notify: (notice: AttemptNotice) => void;
  threadId: number;
  /** Overrides the registered adapter (tests of the thread side). */
  adapter?: ProviderAdapter;
}

/**
 * One AI attempt inside a worker thread, with its records: `node_started` before the provider
 * is called (for a CLI, once its process is forked and before it runs, with its group id), the
 * kept chunks as they arrive, then the terminal record with the spend, whatever the outcome.
 */
export async function runAgentAttempt(task: AgentTask, deps: AgentAttemptDeps): Promise<AttemptResult> {
  const { store, checkout } = deps;
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const registered = deps.adapter ?? adapterFor(task.provider);
  const adapter = registered && withSecretsMasked(registered, new SecretMask(task.secrets));
  let started = false;
  let spawnedPid: number | undefined;
  // What the agent does is written in order, batched, off the stream's path; the terminal record waits for it.
  const tools = new ToolCallTally();
  const activity = new AgentActivity(task, store, tools);
  let origin: SessionOrigin | undefined;
  /** Set when the CLI was lost with its spawn helper. */
  let lost: string | undefined;
  // Each process is recorded before it runs (so a later supervisor finds and kills it).
  const writeStarted = async (pid: number | undefined, ask = 1) => {
    // A second process for the attempt's question is the CLI run again from a new session,
    // because it no longer had the one it was to resume (session-resume.ts): its start record
    // says so, and so do those of any later asks. A process for a re-ask (structured-answer.ts)
    // continues the attempt.
    if (started && ask === 1 && task.resumeSessionId !== undefined) origin = 'resume-failed-cold';
    started = true;
    await store.appendEvents([agentStartedEvent(task, startedAt, pid, checkout, origin)]);
  };

  let outcome: AgentOutcome;
  if (!adapter) {
    outcome = {
      status: 'failed',
      output: '',
      error: `provider '${task.provider}' has no adapter in this version of Cairn`,
      failureKind: 'config',
      retryable: false,
      end: { type: 'end', called: false, observations: {} },
    };
  } else {
    // A CLI adapter records its start with the process group, before the process runs.
    const spawns = getProvider(task.provider)?.transport === 'agent';
    if (!spawns && !deps.signal.aborted) await writeStarted(undefined);
    outcome = await runAgent(task, adapter, {
      signal: deps.signal,
      async onSpawned(pid, ask) {
        spawnedPid = pid;
        deps.notify({ type: 'spawned', attemptId: task.attempt.id, pid, threadId: deps.threadId });
        await writeStarted(pid, ask);
      },
      onChunk(chunk) {
        activity.see(chunk);
      },
      onLost(reason) {
        lost ??= reason;
      },
    }).finally(() => {
      if (spawnedPid !== undefined) deps.notify({ type: 'exited', attemptId: task.attempt.id });
    });
  }
  await activity.close();
  if (lost !== undefined && outcome.status === 'failed') outcome = interruptedBy(lost, task, outcome);
  const result: AttemptResult = {
    status: outcome.status,
    output: outcome.output,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(outcome.failureKind !== undefined ? { failureKind: outcome.failureKind } : {}),
    ...(outcome.retryable !== undefined ? { retryable: outcome.retryable } : {}),
    ...(outcome.interrupted ? { interrupted: true } : {}),
    ...(outcome.providerFailure !== undefined ? { providerFailure: outcome.providerFailure } : {}),
    ...tokensOf(outcome.end.observations.tokens),
    startedAt,
    durationMs: performance.now() - t0,
    exitCode: null,
    signal: null,
    ...(spawnedPid !== undefined ? { pid: spawnedPid } : {}),
    ...(checkout !== undefined ? { checkoutStart: checkout } : {}),
  };
  // Stopped before anything was recorded: nothing ran.
  if (outcome.status === 'cancelled' && !started) return { ...result, status: 'not_started' };
  const spillPath = await spillLongOutput(task, outcome.output);
  const output = { text: outcome.output, ...(outcome.structured !== undefined ? { structured: outcome.structured } : {}), ...(spillPath ? { spillPath } : {}) };
  await keepSession(store, task, outcome);
  const finished = agentFinishedEvent(task, startedAt, result, outcome.end, output, tools, outcome.reasked);
  await attemptCloser(store).close('thread', started ? [finished] : [agentStartedEvent(task, startedAt, undefined, checkout), finished], { persist: true });
  return result;
}

/**
 * The private handle of the session this attempt leaves (store/node-sessions.ts), written before
 * its terminal record so the next attempt that needs it finds it: an unfinished attempt's for the
 * node's retry, a completed one's (marked completed) for a later node or loop iteration that
 * continues it. Losing it costs only a cold start, so a failed write is let go; so is one refused
 * by fencing (the run was taken over: its new owner runs the node again and keeps its own
 * session; the terminal record written next is refused and logged the same way).
 */
async function keepSession(store: Store, task: AgentTask, outcome: AgentOutcome): Promise<void> {
  const sessionId = outcome.end.sessionId;
  if (!providersResumingSessions.includes(task.provider) || (sessionId === undefined && task.resumeSessionId === undefined)) return;
  const handle = sessionId === undefined ? null : { provider: task.provider, sessionId, attemptId: task.attempt.id, completed: outcome.status === 'completed' };
  await store.setNodeSession(task.runId, task.path, handle).catch(() => {});
}

/**
 * The CLI was lost with its spawn helper: whatever the adapter made of its killed process, the
 * attempt is an interruption (or, at the last loss in a row, a final failure) and keeps its spend.
 */
function interruptedBy(lost: string, task: AgentTask, outcome: AgentOutcome): AgentOutcome {
  const next: AgentOutcome = { ...outcome, ...lostFailure(task.nodeId, lost, task.lostBefore) };
  delete next.providerFailure;
  return next;
}

/** Input + output tokens the provider reported (for a tokens-per-minute budget); nothing when it reported none. */
function tokensOf(observed: unknown): { tokens?: number } {
  const t = observed as { input?: unknown; output?: unknown } | undefined;
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  if (t === undefined || t === null || typeof t !== 'object') return {};
  const total = count(t.input) + count(t.output);
  return total > 0 ? { tokens: total } : {};
}
