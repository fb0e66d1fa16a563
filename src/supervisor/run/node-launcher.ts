import type { Logger } from '../../shared/log.js';
import type { RunBudget } from './budget.js';
import { RUN_SLOT } from './engine-slots.js';
import type { GlobalLine } from './global-line.js';
import type { AttemptOutcome, NodeHandlerSet } from './node-handler.js';
import type { NodeEntry } from './node-table.js';
import type { ProviderLine } from './provider-line.js';
import type { ReadyQueue } from './ready-queue.js';
import type { SlotHold, Slots } from './slots.js';

export interface NodeLauncherDeps {
  handlers: NodeHandlerSet;
  /** The global limit (its line records each waiting node's place), the run's own, and (with `providerLine`) the line for provider slots. */
  globalLine: GlobalLine;
  runSlots: Slots;
  providerLine: ProviderLine | undefined;
  providerOf: ((node: NodeEntry['plan']) => string | undefined) | undefined;
  budget: RunBudget;
  ready: ReadyQueue<NodeEntry>;
  log: Logger;
  /** Aborted when the run stops: a node still waiting for its global slot is dropped unrun. */
  queueSignal: AbortSignal;
  runAttempt(entry: NodeEntry): Promise<AttemptOutcome>;
  /**
   * The attempt ended with `outcome` (after its records were written); undefined: it was dropped
   * before it ran. `thrown`: the outcome stands for an attempt that threw (a bug, logged here).
   */
  ended(entry: NodeEntry, outcome: AttemptOutcome | undefined, thrown?: boolean): void;
  /** Asks for the run's next pass. */
  kick(): void;
}

/**
 * Starts a run's ready nodes within its limits: each takes its provider's slot (or is parked in
 * that line, holding nothing), its run's slot, then a global one, and gives all of them back once
 * its attempt has ended and its records are written. Keeps the attempts in flight.
 */
export class NodeLauncher {
  private readonly inflight = new Set<Promise<void>>();

  constructor(private readonly deps: NodeLauncherDeps) {}

  /** Attempts in flight (launched and not yet settled). */
  get size(): number {
    return this.inflight.size;
  }

  /** Resolves once every attempt in flight has settled, those launched meanwhile too. */
  async settle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Launches ready nodes while the run's limit has room; stops at the first one its budget holds back. */
  launchReady(): void {
    const { providerLine, runSlots, budget, ready } = this.deps;
    // Nodes parked for their provider were ready first: they are looked at first, in order.
    const parked = providerLine?.takeAll() ?? [];
    let entry: NodeEntry | undefined;
    while (runSlots.free(RUN_SLOT) && (entry = parked.shift() ?? ready.shift())) {
      const provider = this.deps.providerOf?.(entry.plan);
      const over = provider === undefined ? undefined : budget.over;
      if (over) {
        // Checked before the attempt asks for anything: it stays ready, and the run pauses once
        // what is running has ended (nothing is killed).
        budget.reached = over;
        parked.unshift(entry);
        this.deps.log.info({ nodeId: entry.plan.id, spentUsd: over.spent, budgetUsd: over.usd, budgetRunId: over.runId }, 'run.budget_reached');
        break;
      }
      let providerHold: SlotHold | undefined;
      if (provider !== undefined && providerLine && !(providerHold = providerLine.take(entry, provider))) continue;
      this.launch(entry, provider, providerHold);
    }
    providerLine?.putBack(parked);
  }

  private launch(node: NodeEntry, provider: string | undefined, providerHold: SlotHold | undefined): void {
    node.status = 'running';
    let tokens: number | undefined;
    // A node that waits for other runs holds no global slot (their nodes take theirs).
    const outsideLimit = this.deps.handlers.handlerFor(node.plan).waitsForRuns === true;
    const runHold = outsideLimit ? undefined : this.deps.runSlots.tryAcquire(RUN_SLOT);
    const task = (
      outsideLimit
        ? this.deps.runAttempt(node).then((value) => ({ dropped: false as const, value }))
        : this.deps.globalLine.run(node.path, node.plan.id, () => this.deps.runAttempt(node), this.deps.queueSignal)
    )
      .then((ran) => {
        // Dropped from the queue before it started (cancel, shutdown, drain): nothing ran.
        if (ran.dropped) return this.deps.ended(node, undefined);
        if ('tokens' in ran.value) tokens = ran.value.tokens;
        this.deps.ended(node, ran.value);
      })
      .catch((err: unknown) => {
        this.deps.log.error({ err, nodeId: node.plan.id }, 'node.schedule_failed');
        this.deps.ended(node, { status: 'failed', error: (err as Error).message, failureKind: 'transient' }, true);
      })
      // The attempt's end (and its spend, or its child runs') is committed: the budget is checked against it.
      .then(() => (provider !== undefined || outsideLimit ? this.deps.budget.refresh() : undefined))
      .finally(() => {
        providerHold?.release(tokens);
        if (runHold?.acquired) runHold.hold.release();
        this.inflight.delete(task);
        this.deps.kick();
      });
    this.inflight.add(task);
  }
}
