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
