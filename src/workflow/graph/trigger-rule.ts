import type { TriggerRule } from '../schema/node-blocks.js';

/**
 * Pure graph functions the scheduler uses on every turn: what a node's trigger rule says given
 * its dependencies' outcomes. No I/O, no state. (The graph checks are beside it, in
 * workflow/graph/graph.ts.)
 */

export type TerminalOutcome = 'completed' | 'failed' | 'skipped';

export interface DependencyOutcome {
  id: string;
  outcome: TerminalOutcome;
}

/** Why a trigger rule refused to run a node: the contract's `upstream_failed|upstream_skipped` cause. */
export interface TriggerRefusal {
  kind: 'upstream_failed' | 'upstream_skipped';
  origin: string;
}

/**
 * Decides a node whose dependencies are all terminal. Nodes without dependencies always run.
 * all_success: every dependency completed. one_success: at least one completed.
 * none_failed_min_one_success: none failed and at least one completed. all_done: always.
 */
export function evaluateTriggerRule(
  rule: TriggerRule,
  deps: readonly DependencyOutcome[],
): { run: true } | { run: false; cause: TriggerRefusal } {
  if (deps.length === 0 || rule === 'all_done') return { run: true };
  const failed = deps.find((d) => d.outcome === 'failed');
  const skipped = deps.find((d) => d.outcome === 'skipped');
  const completed = deps.some((d) => d.outcome === 'completed');
  const refuse = (): { run: false; cause: TriggerRefusal } =>
    failed
      ? { run: false, cause: { kind: 'upstream_failed', origin: failed.id } }
      : { run: false, cause: { kind: 'upstream_skipped', origin: skipped?.id ?? deps[0]!.id } };
  switch (rule) {
    case 'all_success':
      return failed || skipped ? refuse() : { run: true };
    case 'one_success':
      return completed ? { run: true } : refuse();
    case 'none_failed_min_one_success':
      return !failed && completed ? { run: true } : refuse();
  }
}
