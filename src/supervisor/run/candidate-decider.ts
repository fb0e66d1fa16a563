import type { NewRunEvent } from '../../store/schemas/event.js';
import type { CheckCondition } from './node-context.js';
import type { NodeEventFactory } from './node-events.js';
import type { NodeEntry, NodeTable } from './node-table.js';
import { fingerprintOfPrior } from './output-fingerprint.js';
import type { ReadyQueue } from './ready-queue.js';
import { evaluateTriggerRule, type TerminalOutcome } from '../../workflow/graph/trigger-rule.js';

/**
 * The scheduler's decision for each node whose dependencies have all ended: run it (to the ready
 * queue), skip it (trigger rule or `when`), fail it without an attempt (a condition that cannot
 * be read), or, on a resumed run, replay its prior success. Nodes it ends may free their
 * dependants, which are decided in the same call.
 */
export class CandidateDecider {
  constructor(
    private readonly deps: { table: NodeTable; events: NodeEventFactory; checkCondition: CheckCondition },
    private readonly candidates: ReadyQueue<NodeEntry>,
    private readonly ready: ReadyQueue<NodeEntry>,
  ) {}

  /** Decides every candidate: ready, skipped, or failed without an attempt. A node that ends
   * here may free its dependants, which are decided in the same pass. Returns the events. */
  decide(): NewRunEvent[] {
    const events: NewRunEvent[] = [];
    let entry: NodeEntry | undefined;
    while ((entry = this.candidates.shift())) {
      if (entry.status !== 'pending') continue;
      const node = entry.plan;
      if (entry.prior && this.decideCached(entry, events)) continue;
      const deps = node.dependsOn.map((dep) => ({ id: dep, outcome: this.deps.table.get(dep)!.status as TerminalOutcome }));
      const verdict = evaluateTriggerRule(node.triggerRule, deps);
      const decision = verdict.run
        ? this.deps.checkCondition(node)
        : ({ reason: 'trigger_rule', cause: verdict.cause } as const);
      if (decision && 'fail' in decision) {
        events.push(this.deps.events.refused(node, decision.fail));
        this.candidates.push(...this.deps.table.settle(entry, 'failed', { error: decision.fail }));
      } else if (decision) {
        events.push(this.deps.events.skipped(node, decision));
        this.candidates.push(...this.deps.table.settle(entry, 'skipped'));
      } else {
        entry.status = 'ready';
        this.ready.push(entry);
      }
    }
    return events;
  }

  /**
   * A resumed run's node with a prior success, now that its dependencies are terminal: replayed
   * (settled completed with the prior output; returns true) unless it is `always_run` (reset) or
   * a dependency ended differently in this pass (invalidated, naming those dependencies). A reset
   * or invalidated node is then decided like any other (returns false).
   */
  private decideCached(entry: NodeEntry, events: NewRunEvent[]): boolean {
    const prior = entry.prior!;
    const node = entry.plan;
    if (!node.alwaysRun) {
      const stale = node.dependsOn.filter((dep) => this.deps.table.get(dep)!.changed);
      if (stale.length === 0) {
        events.push(this.deps.events.replayed(node, prior));
        this.candidates.push(...this.deps.table.settle(entry, 'completed', { output: entry.output, changed: false }));
        return true;
      }
      events.push(this.deps.events.invalidated(node, prior, stale));
    } else {
      events.push(this.deps.events.reset(node, prior));
    }
    entry.priorFingerprint = fingerprintOfPrior(prior);
    delete entry.prior;
    delete entry.output;
    return false;
  }
}
