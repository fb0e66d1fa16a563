import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';

/**
 * USD budgets (`budget.usd` of the workflow or of the run request, kept in `metadata.budget`),
 * one per run tree: a run's budget covers its own attempts and those of every run below it
 * (child runs, fan-out items, their children). A child lists the runs above it that have a
 * budget (`metadata.budget_scope`); the store adds each of its costed attempts to those runs'
 * `descendants_cost_usd` in the transaction that writes the attempt's end. Before each AI attempt
 * starts, every budget in scope (the run's own, then its ancestors') is checked against its
 * run's spend: `total_cost_usd` + `descendants_cost_usd`. Reached, the run pauses; it is never
 * killed mid-attempt.
 */

/**
 * One budget a run is held to: whose it is, how much, and that run's tree spend as last read;
 * once reached, what a budget pause records.
 */
export interface BudgetReached {
  runId: string;
  usd: number;
  spent: number;
}

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

/** A run's spend counted toward its budget: its own attempts and its descendants'. */
export function treeSpendOf(run: Pick<Run, 'metadata'>): number {
  return (run.metadata.totals?.total_cost_usd ?? 0) + (run.metadata.descendants_cost_usd ?? 0);
}

/** The paused run's reason, as `workflow_paused` and the run's status frames carry it. */
export function budgetPauseReason(reached: BudgetReached, ownRunId: string): string {
  const whose = reached.runId === ownRunId ? '' : ` (the budget of run ${reached.runId})`;
  return `budget exceeded: spent ${usd(reached.spent)} of ${usd(reached.usd)}${whose}`;
}

/**
 * The metadata patch of a run paused by a budget: why, until a resume clears it. `at` tells this
 * pause from an earlier one of the same run (a parent waiting on the run after resuming it).
 */
export function budgetPausePatch(reached: BudgetReached, ownRunId: string, at: string): Record<string, unknown> {
  return {
    budget_pause: {
      reason: budgetPauseReason(reached, ownRunId),
      spent_usd: reached.spent,
      budget_usd: reached.usd,
      budget_run_id: reached.runId,
      at,
    },
  };
}

/** The budget a budget-paused run reached, as its `metadata.budget_pause` records it. */
export function budgetReachedOf(run: Pick<Run, 'id' | 'metadata'>): BudgetReached | undefined {
  const pause = run.metadata.budget_pause;
  if (!pause) return undefined;
  const runId = typeof pause.budget_run_id === 'string' ? pause.budget_run_id : run.id;
  return { runId, usd: pause.budget_usd, spent: pause.spent_usd };
}

/**
 * The budgets a run's scheduler holds it to: its own and its ancestors', each with its tree's
 * spend as last read, and whether one of them held an attempt back.
 */
export class RunBudget {
  private readonly limits: BudgetReached[] = [];
  private readonly scope: readonly string[];
  /** An attempt was held back by this budget (or a child paused on it): nothing new starts, and the run pauses once idle. */
  reached: BudgetReached | undefined;

  constructor(
    private readonly run: Pick<Run, 'id' | 'metadata'>,
    private readonly read: (runId: string) => Promise<Pick<Run, 'id' | 'metadata'> | undefined>,
    private readonly log: Logger,
  ) {
    const own = run.metadata.budget?.usd;
    if (own !== undefined) this.limits.push({ runId: run.id, usd: own, spent: treeSpendOf(run) });
    this.scope = run.metadata.budget_scope ?? [];
  }

  /** Some budget applies to this run (its own, or an ancestor's). */
  get any(): boolean {
    return this.limits.length > 0 || this.scope.length > 0;
  }

  /** The first budget whose tree spend has reached it, if any. */
  get over(): BudgetReached | undefined {
    const limit = this.limits.find((l) => l.spent >= l.usd);
    return limit && { ...limit };
  }

  /** `over`, after reading the spend again (what a loop checks before each further call). */
  async reachedNow(): Promise<BudgetReached | undefined> {
    await this.refresh();
    return this.over;
  }

  /**
   * Reads the spend of the run and of the ancestors in its scope again (and the ancestors'
   * budgets, which a resume may have raised), as the transactions of the attempts' ends keep it.
   * Only for a run some budget applies to. A run gone or without a budget any more drops out.
   */
  async refresh(): Promise<void> {
    if (!this.any) return;
    try {
      const ids = [...(this.run.metadata.budget?.usd !== undefined ? [this.run.id] : []), ...this.scope];
      const rows = await Promise.all(ids.map((id) => this.read(id)));
      const fresh: BudgetReached[] = [];
      for (const row of rows) {
        const limit = row?.metadata.budget?.usd;
        if (row && limit !== undefined) fresh.push({ runId: row.id, usd: limit, spent: treeSpendOf(row) });
      }
      this.limits.splice(0, this.limits.length, ...fresh);
    } catch (err) {
      this.log.warn({ err }, 'run.spend_read_failed');
    }
  }
}
