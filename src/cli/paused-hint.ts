import { z } from 'zod';
import type { ApiClient } from './api-client.js';
import { gateCommands } from './commands/run-gate.js';

/** The part of a run's detail that says why it paused (a budget pause, else a gate). */
const pausedRunSchema = z.object({
  run: z.object({
    metadata: z.looseObject({
      budget_pause: z.looseObject({ budget_run_id: z.string().optional() }).nullish(),
    }),
  }),
});

/**
 * What to type to get a paused run going again, as lines to print: the resume that raises the
 * budget when a budget paused it (on the run whose budget it was), else the answers of its gate.
 * A run that cannot be read gets the gate's answers (the pause's own reason is printed anyway).
 */
export async function pausedHint(client: ApiClient, runId: string, signal?: AbortSignal): Promise<string[]> {
  try {
    const { body } = await client.request('GET', `/api/workflows/runs/${encodeURIComponent(runId)}?limit=1`, pausedRunSchema, {
      ...(signal ? { signal } : {}),
    });
    const pause = body.run.metadata.budget_pause;
    if (pause) {
      const owner = pause.budget_run_id ?? runId;
      const whose = owner === runId ? '' : ` (the budget is run ${owner}'s: resuming it resumes this run)`;
      return [`Raise the budget and go on with:  cairn run resume ${owner} --budget-usd <usd>${whose}`];
    }
  } catch {
    // Fall through to the gate's answers.
  }
  const commands = gateCommands(runId);
  return [`Approve it with:  ${commands.approve}`, `Reject it with:   ${commands.reject}`];
}
