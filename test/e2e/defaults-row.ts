import { expect } from 'vitest';
import { createNodeSummary } from '../../src/cli/node-summary.js';
import type { Outcome } from './corpus-outcomes.js';
import { defaultsOutcomes } from './defaults-outcomes.js';

/** The run's status and each node's, as `cairn run get` shows them. */
export function outcomeOf(run: Record<string, any>, events: readonly Record<string, any>[]): Outcome {
  const summary = createNodeSummary();
  summary.add(events as unknown as Parameters<typeof summary.add>[0]);
  return { run: run.status, nodes: Object.fromEntries(summary.nodes().map((n) => [n.node, n.status])) };
}

/** The run ended as the row of defaults-outcomes.ts for `workflow` says the upstream ends it, each node too. */
export function expectDefaultsRow(workflow: string, run: Record<string, any>, events: readonly Record<string, any>[]): void {
  const row = defaultsOutcomes.find((r) => r.file === `${workflow}.yaml`);
  expect(row?.here, `${workflow} is a row that runs here`).toBe(true);
  expect(outcomeOf(run, events)).toEqual({ run: row!.run, nodes: row!.nodes });
}
