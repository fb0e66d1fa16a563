import { z } from 'zod';
import type { ApiClient } from './api-client.js';
import { gateCommands } from './commands/run-gate.js';

/** The part of a run's detail that says why it paused: a budget pause, a child run it waits on, else its own gate. */
const pausedRunSchema = z.object({
  run: z.object({
    metadata: z.looseObject({
      budget_pause: z.looseObject({ budget_run_id: z.string().optional() }).nullish(),
      approval: z.looseObject({ type: z.string().optional(), childRunId: z.string().optional() }).nullish(),
    }),
  }),
});

/** Child runs followed down from a paused parent before the hint settles for the last one read. */
const MAX_CHILD_DEPTH = 32;

/**
 * What to type to get a paused run going again, as lines to print: the resume that raises the
 * budget when a budget paused it (on the run whose budget it was), else the answers of its gate.
 * A run blocked on a child run's gate (`metadata.approval.type: child_workflow`) is answered on
 * that child (the server refuses an answer on the parent), and on a grandchild when the child
 * waits on one in turn: the hint names the run it answers and why. A run that cannot be read gets
 * the gate's answers (the pause's own reason is printed anyway).
 */
export async function pausedHint(client: ApiClient, runId: string, signal?: AbortSignal): Promise<string[]> {
  const chain: string[] = [];
  let current = runId;
  try {
    for (;;) {
      const { body } = await client.request('GET', `/api/workflows/runs/${encodeURIComponent(current)}?limit=1`, pausedRunSchema, {
        ...(signal ? { signal } : {}),
      });
      const { budget_pause: pause, approval } = body.run.metadata;
      if (pause) {
        const owner = pause.budget_run_id ?? current;
        const whose = owner === runId ? '' : ` (the budget is run ${owner}'s: resuming it resumes this run)`;
        return [...waitsOn(runId, chain), `Raise the budget and go on with:  cairn run resume ${owner} --budget-usd <usd>${whose}`];
      }
      const child = approval?.type === 'child_workflow' ? approval.childRunId : undefined;
      if (!child || chain.length >= MAX_CHILD_DEPTH || chain.includes(child)) break;
      chain.push(child);
      current = child;
    }
  } catch {
    // Answer the deepest run read so far.
  }
  const commands = gateCommands(current);
  return [...waitsOn(runId, chain), `Approve it with:  ${commands.approve}`, `Reject it with:   ${commands.reject}`];
}

/** `It waits on its child run <id>'s gate.` for a parent blocked on a child (through grandchildren: each named). */
function waitsOn(runId: string, chain: readonly string[]): string[] {
  if (chain.length === 0) return [];
  const [child, ...deeper] = chain;
  const through = deeper.length ? `, which waits on ${deeper.map((id) => `run ${id}`).join(', which waits on ')}` : '';
  return [`Run ${runId} waits on its child run ${child}${through}: answer run ${chain.at(-1)}.`];
}
