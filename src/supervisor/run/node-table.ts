import type { ReusableOutput } from '../../records/index.js';
import { producerOf, type ProducerState } from '../../workflow/substitution/resolve-output.js';
import type { InvocationIdentity } from './node-handler.js';
import type { PlannedNode, RunPlan } from './run-plan.js';

/**
 * The scheduler's state of one node of a run. `queued` and `running` are both "an attempt is
 * on its way" (waiting for a global slot, or executing); `retry_wait` holds no slot.
 */
export type NodeStatus =
  | 'pending'
  | 'ready'
  | 'running'
  | 'retry_wait'
  /** A `wait` node whose timer has not fired: no slot held. */
  | 'waiting'
  /** At a gate, waiting for a person's answer: the run pauses once nothing else can run. */
  | 'suspended'
  | 'completed'
  | 'failed'
  | 'skipped';
export type TerminalStatus = Extract<NodeStatus, 'completed' | 'failed' | 'skipped'>;

export interface NodeEntry {
  /** The node's path in the run (its id for a top-level node): the table's key. */
  readonly path: string;
  readonly plan: PlannedNode;
  status: NodeStatus;
  /** Attempts started so far in the current invocation. */
  attempts: number;
  invocation?: InvocationIdentity;
  error?: string;
  /** The full output of a completed node, kept only while a later node may reference it. */
  output?: string;
  /** Epoch ms when a node restored in the middle of its retry delay may run again. */
  retryAt?: number;
  /** A failed node whose provider's usage limit resets then (epoch ms): see quota-resume.ts. */
  resumeAt?: number;
  /**
   * A resumed run: the node's prior success, reused (`replayed`) when it is decided unless it is
   * `always_run` (`reset`) or a dependency ran again with another output (`invalidated`).
   */
  prior?: ReusableOutput;
  /** The fingerprint of a prior success that was reset or invalidated: its new output is compared with it. */
  priorFingerprint?: string;
  /**
   * The node ended in this pass of the run with another outcome than a prior success it had (it
   * ran, failed or was skipped; a replay is unchanged): a cached dependant is invalidated.
   */
  changed: boolean;
  /** The attempt a `waiting` node continues when its timer fires (same invocation and attempt). */
  heldAttempt?: { id: string; number: number };
  /** Dependencies that are not terminal yet: the node is decided when this reaches 0, so a
   * join over N dependencies costs O(1) per finished dependency, not a rescan of all N. */
  unfinishedDeps: number;
}

/** What a restored run knows about a node (from its event log). */
export interface RestoredNode {
  status: 'pending' | TerminalStatus;
  attempts: number;
  invocation?: InvocationIdentity;
  error?: string;
  output?: string;
  /** Set when the node was waiting out a retry delay: epoch ms when it may run again. */
  retryAt?: number;
  /** A failed node whose provider's usage limit resets then (epoch ms). */
  resumeAt?: number;
  /** A resumed run: the prior success of a node that is pending again (see NodeEntry.prior). */
  prior?: ReusableOutput;
  /** Set when its last attempt was suspended (a gate, a wait): that attempt is continued, not a new one started. */
  heldAttempt?: { id: string; number: number };
}

export function isTerminal(status: NodeStatus): status is TerminalStatus {
  return status === 'completed' || status === 'failed' || status === 'skipped';
}

/**
 * Every node of a run keyed by path, with the dependants of each and a running count of
 * terminal nodes, so that "which nodes does this finish unblock" and "is the run done" are
 * O(dependants) and O(1).
 */
export class NodeTable {
  private readonly entries = new Map<string, NodeEntry>();
  private readonly dependants = new Map<string, NodeEntry[]>();
  private readonly referenced: ReadonlySet<string>;
  private terminalCount = 0;

  constructor(
    plan: RunPlan,
    restored: ReadonlyMap<string, RestoredNode> = new Map(),
  ) {
    this.referenced = plan.referencedOutputs;
    for (const node of plan.nodes) {
      const prior = restored.get(node.id);
      const entry: NodeEntry = {
        path: node.id,
        plan: node,
        status: prior?.status ?? 'pending',
        attempts: prior?.attempts ?? 0,
        unfinishedDeps: 0,
        // Restored terminal nodes ended in this pass already; only a completion counts as unchanged.
        changed: prior !== undefined && prior.status !== 'completed' && prior.status !== 'pending',
        ...(prior?.invocation ? { invocation: prior.invocation } : {}),
        ...(prior?.error !== undefined ? { error: prior.error } : {}),
        ...(prior?.retryAt !== undefined ? { retryAt: prior.retryAt } : {}),
        ...(prior?.resumeAt !== undefined ? { resumeAt: prior.resumeAt } : {}),
        ...(prior?.prior !== undefined ? { prior: prior.prior } : {}),
        ...(prior?.heldAttempt !== undefined ? { heldAttempt: prior.heldAttempt } : {}),
        ...(prior?.output !== undefined && plan.referencedOutputs.has(node.id) ? { output: prior.output } : {}),
      };
      if (isTerminal(entry.status)) this.terminalCount++;
      this.entries.set(entry.path, entry);
    }
    for (const entry of this.entries.values()) {
      for (const dep of entry.plan.dependsOn) {
        const producer = this.entries.get(dep)!;
        if (!isTerminal(producer.status)) entry.unfinishedDeps++;
        let list = this.dependants.get(dep);
        if (!list) this.dependants.set(dep, (list = []));
        list.push(entry);
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(path: string): NodeEntry | undefined {
    return this.entries.get(path);
  }

  values(): IterableIterator<NodeEntry> {
    return this.entries.values();
  }

  /** Every node is completed, failed or skipped. */
  allTerminal(): boolean {
    return this.terminalCount === this.entries.size;
  }

  /** Nodes restored in the middle of a retry delay. */
  retrying(): NodeEntry[] {
    return [...this.entries.values()].filter((e) => e.status === 'pending' && e.retryAt !== undefined);
  }

  /** Pending nodes with no unfinished dependency, in the given order: where scheduling starts. */
  unblocked(order: readonly string[]): NodeEntry[] {
    const found: NodeEntry[] = [];
    for (const path of order) {
      const entry = this.entries.get(path);
      if (entry?.status === 'pending' && entry.unfinishedDeps === 0 && entry.retryAt === undefined) found.push(entry);
    }
    return found;
  }

  /**
   * Records a node's final status. Returns the dependants for which it was the last unfinished
   * dependency: the nodes that can now be decided.
   */
  settle(
    entry: NodeEntry,
    status: TerminalStatus,
    detail: { error?: string; output?: string; changed?: boolean; resumeAt?: number } = {},
  ): NodeEntry[] {
    if (isTerminal(entry.status)) throw new Error(`node '${entry.path}' is already ${entry.status}`);
    entry.status = status;
    entry.changed = detail.changed ?? true;
    delete entry.prior;
    if (detail.error !== undefined) entry.error = detail.error;
    if (detail.resumeAt !== undefined) entry.resumeAt = detail.resumeAt;
    // Only outputs a later node references stay in memory; the rest live in the event log.
    if (detail.output !== undefined && this.referenced.has(entry.path)) entry.output = detail.output;
    this.terminalCount++;
    const freed: NodeEntry[] = [];
    for (const dependant of this.dependants.get(entry.path) ?? []) {
      if (--dependant.unfinishedDeps === 0) freed.push(dependant);
    }
    return freed;
  }

  /** What a consumer's reference to `nodeId` sees: its outcome and, when completed, its output and declared schema. */
  producer(nodeId: string): ProducerState | undefined {
    const entry = this.entries.get(nodeId);
    return producerOf(entry, entry?.plan.outputFormat);
  }
}
