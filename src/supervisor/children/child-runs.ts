import { queueRun } from '../../runs/queue-run.js';
import { runProjectDir } from '../../codebases/run-project-dir.js';
import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { InstallKey } from '../../shared/secrets/install-key.js';
import { terminalRunStatuses, type Run, type RunStatus } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { WorkflowEntry } from '../../workflow/catalog/discover-workflows.js';
import { resolveRunInputs, type SuppliedInputs } from '../../workflow/schema/run-inputs.js';
import { childRefusal, isInteractive } from '../../workflow/schema/interactive.js';
import { childRunOutput } from '../../runs/child-output.js';
import type { ChildRunSignals } from './child-signals.js';
import { budgetReachedOf, type BudgetReached } from '../run/budget.js';

/** Finds a workflow by name in a project folder (the supervisor's catalog). */
export type ChildWorkflowLookup = (name: string, query: { cwd?: string }) => Promise<WorkflowEntry>;

/** How deep child runs may nest (a workflow that starts itself stops here, with the reason). */
export const MAX_CHILD_DEPTH = 10;

/**
 * How often a node waiting for its child reads the child again when no news came. The news is
 * durable (a `child_run_settled` job), but a job can still be given up (a supervisor that kept
 * stalling past its lease while another took the job); then the wait ends within this, never
 * stays stuck. One read of one row per waiting child.
 */
export const CHILD_RECHECK_MS = 60_000;

export interface ChildRunsDeps {
  store: Store;
  signals: ChildRunSignals;
  lookup: ChildWorkflowLookup;
  /** The parent run, as acquired. */
  parent: Run;
  /** Where the parent's nodes run: an `isolation: inherit` child works there too. */
  workingPath: string | null;
  /** The parent's `config.env`, opened; sealed again for each child with the install key. */
  env: Readonly<Record<string, string>>;
  installKey: () => InstallKey;
  log: Logger;
  /** CHILD_RECHECK_MS unless a test shortens it. */
  recheckMs?: number;
}

/** What a child run is asked: its place under the parent, its message and inputs. */
export interface ChildRequest {
  nodePath: string;
  index: number;
  workflow: string;
  message: string;
  /** Literal `with:` values and fan-out items are typed; values with references filled in are text. */
  inputs: SuppliedInputs;
  isolation: 'inherit' | 'worktree';
}

/** A child run as the parent node sees it once it stopped: paused, or ended with its output or error. */
export type ChildEnd =
  | { status: 'completed'; runId: string; output: string }
  | { status: 'failed' | 'cancelled'; runId: string; error: string }
  | { status: 'paused'; runId: string; message: string; budget?: BudgetReached };

/**
 * Child runs of one parent run: started through queueRun (the one way runs are created), found
 * again by (parent, node, index) so a node run again after a take-over or a resume reuses them,
 * waited for through the durable `child_run_settled` news, and read for their output.
 */
export class ChildRuns {
  private readonly entries = new Map<string, Promise<WorkflowEntry>>();
  private depthChecked: Promise<void> | undefined;

  constructor(private readonly deps: ChildRunsDeps) {}

  /** The child there is at (node, index), if any. */
  find(nodePath: string, index: number): Promise<Run | undefined> {
    return this.deps.store.getChildRun(this.deps.parent.id, nodePath, index);
  }

  /** The children a node started, by index. */
  list(nodePath: string): Promise<Run[]> {
    return this.deps.store.listChildRuns(this.deps.parent.id, nodePath);
  }

  /**
   * The child workflow, looked up once per name where the parent's project is. An interactive one
   * is refused (a CairnError the node fails with): the parent loaded before it became interactive,
   * or in another project.
   */
  workflow(name: string): Promise<WorkflowEntry> {
    let entry = this.entries.get(name);
    if (!entry) {
      entry = (async () => {
        const cwd = await runProjectDir(this.deps.store, this.deps.parent);
        const found = await this.deps.lookup(name, cwd ? { cwd } : {});
        if (isInteractive(found.workflow)) throw new CairnError('WORKFLOW_INVALID', childRefusal(found.workflow.name));
        return found;
      })();
      this.entries.set(name, entry);
      entry.catch(() => this.entries.delete(name));
    }
    return entry;
  }

  /**
   * Queues the child (or finds the one queued before). Throws a CairnError naming a bad request.
   * The child runs as its parent's request asked: for the same user (whose credentials its AI
   * nodes use), with the same overrides (model bindings, tiers, aliases) and `config.env`, the
   * same `$BASE_BRANCH` and `$STATE_DIR`, and under the parent's USD budget (and those above it),
   * which it shares with its siblings.
   */
  async start(request: ChildRequest): Promise<Run> {
    const existing = await this.find(request.nodePath, request.index);
    if (existing) return existing;
    await (this.depthChecked ??= this.checkDepth());
    const entry = await this.workflow(request.workflow);
    const inputs = resolveRunInputs(entry.workflow.name, entry.workflow.inputs, request.inputs);
    const { parent } = this.deps;
    const worktree = request.isolation === 'worktree' && parent.codebase_id !== null;
    return queueRun(this.deps.store, {
      entry,
      inputs,
      message: request.message,
      workingPath: worktree ? ((await runProjectDir(this.deps.store, parent)) ?? null) : this.deps.workingPath,
      codebaseId: worktree ? parent.codebase_id : null,
      conversationId: parent.conversation_id,
      parent: { runId: parent.id, nodeId: request.nodePath, childIndex: request.index },
      userId: parent.user_id,
      // The child works on the parent's codebase (in its worktree, or in one of its own cut from
      // the same base): it works against the parent's base and shares its state folder.
      baseBranch: parent.metadata.isolation?.base,
      inherited: { base_branch: parent.metadata.base_branch, state_dir: parent.metadata.state_dir },
      overrides: parent.metadata.overrides,
      env: Object.keys(this.deps.env).length > 0 ? { values: this.deps.env, key: this.deps.installKey } : undefined,
      ...this.budgetScope(),
      clock: Date.now,
    });
  }

  /**
   * The budgets the child's spend counts toward: the parent's, if it has one, then those the
   * parent's own spend counts toward. One budget covers its run's whole tree, so the children of
   * a fan-out share what is left of it instead of each getting all of it. The child workflow's
   * own `budget.usd` (queueRun reads it) is one more budget, over the child's own tree.
   */
  private budgetScope(): { budgetScope?: string[] } {
    const { parent } = this.deps;
    const scope = [...(parent.metadata.budget?.usd !== undefined ? [parent.id] : []), ...(parent.metadata.budget_scope ?? [])];
    return scope.length ? { budgetScope: scope } : {};
  }

  private async checkDepth(): Promise<void> {
    let depth = 1;
    let up = this.deps.parent.parent_run_id;
    while (up !== null) {
      if (++depth > MAX_CHILD_DEPTH) {
        throw new CairnError('WORKFLOW_INVALID', `child runs nest deeper than ${MAX_CHILD_DEPTH} levels (does a workflow start itself?)`);
      }
      up = (await this.deps.store.getRun(up))?.parent_run_id ?? null;
    }
  }

  /** Asks the child to be resumed (a failed child of an earlier pass of the parent). */
  async resume(child: Run): Promise<void> {
    await this.deps.store.enqueueJob('resume_run', child.id, {}, { onBehalfOf: this.deps.parent.id });
  }

  /** Asks the child to be cancelled (the parent's node stops). */
  async cancel(childRunId: string): Promise<void> {
    // Only while this supervisor drives the parent: one that lost it (paused past its lease)
    // must not cancel the children the new owner waits for (the store refuses, fenced).
    await this.deps.store.enqueueJob('cancel_run', childRunId, {}, { onBehalfOf: this.deps.parent.id }).catch((err: unknown) => {
      this.deps.log.warn({ err, childRunId }, 'child.cancel_failed');
    });
  }

  /**
   * Waits until the child pauses or ends: a pause or an end counts only when it is not `stale`
   * (the one it had when it was just asked to resume; a budget pause is told from the next by its
   * time). Resolves undefined when `signal` aborts.
   */
  async settled(childRunId: string, signal: AbortSignal, stale?: Pick<Run, 'status' | 'completed_at' | 'metadata'>): Promise<ChildEnd | undefined> {
    let wake!: () => void;
    let woken = new Promise<void>((resolve) => (wake = resolve));
    const unwatch = this.deps.signals.watch(childRunId, () => wake());
    const onAbort = (): void => wake();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (signal.aborted) return undefined;
        const child = await this.deps.store.getRun(childRunId);
        if (!child) return { status: 'failed', runId: childRunId, error: `child run ${childRunId} is gone` };
        const isStale =
          stale !== undefined &&
          child.status === stale.status &&
          child.completed_at === stale.completed_at &&
          child.metadata.budget_pause?.at === stale.metadata.budget_pause?.at;
        if (!isStale && (child.status === 'paused' || terminalRunStatuses.includes(child.status))) return this.endOf(child);
        const recheck = setTimeout(() => wake(), this.deps.recheckMs ?? CHILD_RECHECK_MS);
        await woken;
        clearTimeout(recheck);
        woken = new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      unwatch();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** The child's end as the parent reads it (its output read from its events). */
  async endOf(child: Run): Promise<ChildEnd> {
    const status: RunStatus = child.status;
    if (status === 'completed') return { status, runId: child.id, output: await childRunOutput(this.deps.store, child.id) };
    if (status === 'paused') {
      const budget = budgetReachedOf(child);
      if (budget) return { status, runId: child.id, message: child.metadata.budget_pause!.reason, budget };
      const message = typeof child.metadata.approval?.message === 'string' ? child.metadata.approval.message : 'paused';
      return { status, runId: child.id, message };
    }
    const error = child.error ?? (status === 'cancelled' ? 'the child run was cancelled' : 'the child run failed');
    return { status: status === 'cancelled' ? 'cancelled' : 'failed', runId: child.id, error };
  }
}
