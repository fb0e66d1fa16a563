import { z } from 'zod';
import type { ApiClient } from './api-client.js';
import { gateCommands } from './commands/run-gate.js';

/** The part of a run's detail that says why it paused: a budget pause, a child run it waits on, else its own gate. */
const pausedRunSchema = z.object({
  run: z.object({
    status: z.string(),
    metadata: z.looseObject({
      budget_pause: z.looseObject({ budget_run_id: z.string().optional() }).nullish(),
      approval: z.looseObject({ type: z.string().optional(), childRunId: z.string().optional() }).nullish(),
    }),
  }),
});

/** Child runs followed down from a paused parent before the hint settles for the last one read. */
const MAX_CHILD_DEPTH = 32;

/** Who a paused run waits for: the run to answer (itself, or the child run whose gate holds it), and that run's state. */
export interface PauseTarget {
  /** The child runs between the paused run and the one to answer, outermost first (empty: the run itself). */
  chain: string[];
  /** The run whose gate (or budget) is to be answered. */
  runId: string;
  /** Its status, when it could be read. */
  status: string | undefined;
  /** Paused by a budget: the run to resume with more of it. */
  budgetRunId?: string;
}

/**
 * Who a paused run waits for. A run blocked on a child run's gate (`metadata.approval.type:
 * child_workflow`) waits for that child (the server refuses an answer given to the parent), and
 * for a grandchild when the child waits on one in turn. A run that cannot be read stops the walk.
 */
export async function readPauseTarget(client: ApiClient, runId: string, signal?: AbortSignal): Promise<PauseTarget> {
  const chain: string[] = [];
  let current = runId;
  let status: string | undefined;
  try {
    for (;;) {
      status = undefined;
      const { body } = await client.request('GET', `/api/workflows/runs/${encodeURIComponent(current)}?limit=1`, pausedRunSchema, {
        ...(signal ? { signal } : {}),
      });
      status = body.run.status;
      const { budget_pause: pause, approval } = body.run.metadata;
      if (pause) return { chain, runId: current, status, budgetRunId: pause.budget_run_id ?? current };
      const child = approval?.type === 'child_workflow' ? approval.childRunId : undefined;
      if (!child || chain.length >= MAX_CHILD_DEPTH || chain.includes(child)) break;
      chain.push(child);
      current = child;
    }
  } catch {
    // Answer the deepest run read so far.
  }
  return { chain, runId: current, status };
}

/**
 * What to type to get a paused run going again, as lines to print: the resume that raises the
 * budget when a budget paused it (on the run whose budget it was), else the answers of its gate,
 * given to the child run whose gate holds it (named, with why) when it waits on one. A run that
 * cannot be read gets the gate's answers (the pause's own reason is printed anyway).
 */
export async function pausedHint(client: ApiClient, runId: string, signal?: AbortSignal): Promise<string[]> {
  const target = await readPauseTarget(client, runId, signal);
  const waits = waitsOn(runId, target.chain);
  if (target.budgetRunId !== undefined) {
    const owner = target.budgetRunId;
    const whose = owner === runId ? '' : ` (the budget is run ${owner}'s: resuming it resumes this run)`;
    return [...waits, `Raise the budget and go on with:  cairn run resume ${owner} --budget-usd <usd>${whose}`];
  }
  const commands = gateCommands(target.runId);
  return [...waits, `Approve it with:  ${commands.approve}`, `Reject it with:   ${commands.reject}`];
}

/** `Run <id> waits on its child run <child>: answer run <child>.` for a parent blocked on a child (through grandchildren: each named). */
function waitsOn(runId: string, chain: readonly string[]): string[] {
  if (chain.length === 0) return [];
  const [child, ...deeper] = chain;
  const through = deeper.length ? `, which waits on ${deeper.map((id) => `run ${id}`).join(', which waits on ')}` : '';
  return [`Run ${runId} waits on its child run ${child}${through}: answer run ${chain.at(-1)}.`];
}
