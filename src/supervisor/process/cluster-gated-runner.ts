import type { ClusterSlots } from '../../store/cluster-slots.js';
import type { AttemptResult, AttemptTaskEnvelope } from '../../worker/attempt-protocol.js';
import type { AttemptRunner } from '../run/run-services.js';

/** An attempt stopped while it waited for its provider's place: nothing ran, nothing is recorded. */
function notStarted(): AttemptResult {
  return { status: 'not_started', output: '', startedAt: new Date().toISOString(), durationMs: 0, exitCode: null, signal: null };
}

/**
 * The worker pool, with each AI attempt of a provider that has a limit (`concurrency.providers`)
 * holding one of that provider's places in the database while it runs: the limit then holds
 * across every supervisor on the database, not only within this one (which still keeps its own
 * line and counts first).
 */
export function clusterGated(runner: AttemptRunner, slots: ClusterSlots, limits: Readonly<Record<string, number>>): AttemptRunner {
  return {
    async runAttempt(task: AttemptTaskEnvelope, opts: { signal: AbortSignal }): Promise<AttemptResult> {
      const provider = (task as { provider?: unknown }).provider;
      const limit = typeof provider === 'string' ? limits[provider] : undefined;
      if (limit === undefined) return runner.runAttempt(task, opts);
      const ran = await slots.run(`provider:${provider as string}`, limit, () => runner.runAttempt(task, opts), opts.signal);
      return ran ? ran.value : notStarted();
    },
  };
}
