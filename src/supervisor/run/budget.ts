import type { Logger } from '../../shared/log.js';

/**
 * A run's USD budget (`budget.usd` of the workflow or of the run request, kept in
 * `metadata.budget`): checked against the engine's cost total (`metadata.totals.total_cost_usd`)
 * before each AI attempt starts. Reached, the run pauses; it is never killed mid-attempt.
 */

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

/** The paused run's reason, as `workflow_paused` and the run's status frames carry it. */
export function budgetPauseReason(spentUsd: number, budgetUsd: number): string {
  return `budget exceeded: spent ${usd(spentUsd)} of ${usd(budgetUsd)}`;
}

/** The metadata patch of a run paused by its budget: why, until a resume clears it. */
export function budgetPausePatch(spentUsd: number, budgetUsd: number): Record<string, unknown> {
  return { budget_pause: { reason: budgetPauseReason(spentUsd, budgetUsd), spent_usd: spentUsd, budget_usd: budgetUsd } };
}

/** A run's budget as its scheduler tracks it: the limit, the spend as last read, and whether it held an attempt back. */
export class RunBudget {
  readonly usd: number | undefined;
  private spent: number;
  /** An AI attempt was held back: nothing new starts, and the run pauses once idle. */
  reached = false;

  constructor(metadata: { budget?: { usd: number } | undefined; totals?: { total_cost_usd?: number | undefined } | undefined }) {
    this.usd = metadata.budget?.usd;
    this.spent = metadata.totals?.total_cost_usd ?? 0;
  }

  /** Set, and the counted spend has reached it. */
  get over(): boolean {
    return this.usd !== undefined && this.spent >= this.usd;
  }

  /** Reads the run's cost total again, as the transaction of each attempt's end keeps it (only for a run with a budget). */
  async refresh(read: () => Promise<number | undefined>, log: Logger): Promise<void> {
    if (this.usd === undefined) return;
    try {
      this.spent = (await read()) ?? this.spent;
    } catch (err) {
      log.warn({ err }, 'run.spend_read_failed');
    }
  }

  get spentUsd(): number {
    return this.spent;
  }
}
