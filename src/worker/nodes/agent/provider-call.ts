import type { FailureKind, ProviderFailureClass } from '../../../records/schemas/node-lifecycle.js';
import { cancelledFailure, stopRequestOf } from '../../cancel-reason.js';
import { isPermanentClass } from '../../providers/common/failure-class.js';
import type { ProviderAdapter, ProviderEnd } from '../../providers/provider-adapter.js';
import type { AgentCall, AgentOutcome, AgentRunOptions } from './agent-call.js';

type Watchdog = { kind: 'first_event' | 'idle'; ms: number };

/**
 * One call of a provider through its adapter, under two watchdogs: the first chunk must arrive
 * within `firstEventTimeoutMs`, and no gap between chunks may exceed `idleTimeoutMs`. A watchdog
 * that fires aborts the adapter (which kills its process group before it ends) and the call
 * fails with `failureKind: timeout`; a timeout is never a success. A user's cancel ends it as
 * cancelled. The adapter's stream is always drained to its `end` chunk, so nothing it started
 * outlives the call. The answer is returned as the provider gave it: the node's `output_format`
 * is checked by the caller. `ask` numbers the call within its attempt (see `onSpawned`).
 */
export async function callProvider(task: AgentCall, adapter: ProviderAdapter, opts: AgentRunOptions, ask = 1): Promise<AgentOutcome> {
  const onSpawned = opts.onSpawned;
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal.reason);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  if (opts.signal.aborted) onAbort();
  let fired: Watchdog | undefined;
  let end: ProviderEnd | undefined;
  let text = '';
  try {
    const iterator = adapter
      .run(
        {
          provider: task.provider,
          prompt: task.prompt,
          ...(task.model !== undefined ? { model: task.model } : {}),
          ...(task.effort !== undefined ? { effort: task.effort } : {}),
          ...(task.outputFormat !== undefined ? { outputFormat: task.outputFormat } : {}),
          ...(task.systemPrompt !== undefined ? { systemPrompt: task.systemPrompt } : {}),
          options: task.options,
          cwd: task.cwd,
          connection: task.connection,
          sessionKey: `${task.runId}:${task.attempt.id}`,
          ...(task.resumeSessionId !== undefined ? { resumeSessionId: task.resumeSessionId } : {}),
          ...(task.sessionSource?.fork ? { forkSession: true } : {}),
          ...(task.sessionDir !== undefined ? { sessionDir: task.sessionDir } : {}),
          scratchDir: task.scratchDir,
        },
        {
          signal: controller.signal,
          ...(onSpawned ? { onSpawned: (pid: number) => onSpawned(pid, ask) } : {}),
          ...(opts.onLost ? { onLost: opts.onLost } : {}),
        },
      )
      [Symbol.asyncIterator]();
    let watchdog: Watchdog = { kind: 'first_event', ms: task.firstEventTimeoutMs };
    for (;;) {
      // The chunk asked for when a watchdog fires is still read: it is often the adapter's end
      // (with the spend and the session), which arrives once the stopped process has exited.
      const pending = iterator.next();
      let next = fired ? await pending : await raceWatchdog(pending, watchdog.ms);
      if (next === 'timeout') {
        fired = watchdog;
        controller.abort('timeout');
        next = await pending;
      }
      if (next.done) break;
      const chunk = next.value;
      if (chunk.type === 'end') {
        end = chunk;
        continue;
      }
      if (chunk.type === 'text') text += chunk.text;
      opts.onChunk?.(chunk);
      watchdog = { kind: 'idle', ms: task.idleTimeoutMs };
    }
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
  }
  end ??= { type: 'end', called: false, observations: {}, failure: { message: 'the provider adapter ended without a result', provider: { class: 'unknown', evidence: 'no end chunk' } } };
  if (opts.signal.aborted) {
    return { status: 'cancelled', output: end.text ?? text, end, ...cancelledFailure(stopRequestOf(opts.signal.reason)) };
  }
  if (fired) return timedOut(fired, end, text);
  if (end.failure) return providerFailed(end, text);
  return { status: 'completed', output: end.text ?? text, end };
}

function raceWatchdog<T>(next: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    next.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function timedOut(fired: Watchdog, end: ProviderEnd, text: string): AgentOutcome {
  const what =
    fired.kind === 'first_event'
      ? `no event from the provider within ${fired.ms} ms (first-event watchdog; CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS raises it)`
      : `no event from the provider for ${fired.ms} ms (idle watchdog; the node's idle_timeout raises it)`;
  return { status: 'failed', output: text, end, error: `timed out: ${what}; its processes were stopped`, failureKind: 'timeout' };
}

const failureKindByClass: Readonly<Record<ProviderFailureClass, FailureKind>> = {
  auth: 'fatal',
  quota_exhausted: 'fatal',
  budget_exceeded: 'fatal',
  misconfigured: 'config',
  rate_limited: 'rate_limited',
  overloaded: 'overloaded',
  transient: 'transient',
  unknown: 'unknown',
};

function providerFailed(end: ProviderEnd, text: string): AgentOutcome {
  const failure = end.failure!;
  const cls = failure.provider.class;
  return {
    status: 'failed',
    output: end.text ?? text,
    end,
    error: failure.message,
    failureKind: failureKindByClass[cls],
    ...(isPermanentClass(cls) ? { retryable: false } : {}),
    providerFailure: failure.provider,
  };
}
