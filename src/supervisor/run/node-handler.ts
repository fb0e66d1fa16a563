import type { ApprovalContext } from '../../store/schemas/approval.js';
import type { BudgetReached } from './budget.js';
import type { PlannedAction, PlannedNode } from './run-plan.js';
import type { VariableValues } from '../../workflow/substitution/variables.js';
import type { CheckoutObservation } from '../../records/schemas/checkout-observation.js';
import type { Diagnostics, Invocation, LoopFrame } from '../../records/schemas/execution-record.js';
import type { OutputLookup } from '../../workflow/substitution/resolve-output.js';

/**
 * Where a loop_group body node reads references: the outputs of its own iteration's body nodes
 * before the run's, and `$LOOP_PREV.<id>.output` from the previous iteration.
 */
export interface BodyScope {
  outputs: OutputLookup;
  previousIteration?: OutputLookup;
}

/**
 * An invocation of a node: its id, when it began, and the checkout as its first attempt found it
 * (contract: later attempts and resumed continuations retain it).
 */
export interface InvocationIdentity {
  id: string;
  startedAt: string;
  checkoutStart?: CheckoutObservation;
}

/** The identity of a recorded invocation, to go on with it (its loop path is the attempt's). */
export function invocationIdentityOf(invocation: Invocation): InvocationIdentity {
  const { id, startedAt, checkoutStart } = invocation;
  return { id, startedAt, ...(checkoutStart !== undefined ? { checkoutStart } : {}) };
}

/** Which invocation and attempt of a node an attempt is. */
export interface AttemptIdentity {
  invocation: InvocationIdentity;
  attempt: { id: string; number: number };
}

/** One attempt of one node, as the scheduler hands it to the node's handler (typed by the node's action). */
export interface NodeAttempt<A extends PlannedAction = PlannedAction> {
  readonly node: PlannedNode<A>;
  /** The node's path in the run. */
  readonly path: string;
  readonly identity: AttemptIdentity;
  /** Aborted on cancel (`'cancelled'`) or shutdown (`{ reason: 'shutdown' }`). */
  readonly signal: AbortSignal;
  /** The enclosing loop groups and their iterations (empty or absent at the top level). */
  readonly loopPath?: readonly LoopFrame[];
  /** Variables only this body sees ($REJECTION_REASON in a gate's rework, $LOOP_PREV_OUTPUT in a loop). */
  readonly variables?: VariableValues;
  /** A loop_group body node: what its references read (see BodyScope). */
  readonly scope?: BodyScope;
  /** Written on the attempt's terminal record (a loop iteration's `iteration` and `maxIterations`). */
  readonly diagnostics?: Diagnostics;
  /** Set when this call continues an attempt that answered `waiting` (same identity): its timer fired. */
  readonly continued?: boolean;
  /**
   * For a node that asks a provider (an AI node, a loop with an AI body): reads the run's USD
   * budgets again and answers the one its spend has reached. A loop checks it before each
   * iteration after the first it runs; the node's start was checked as any AI node's.
   */
  readonly budget?: () => Promise<BudgetReached | undefined>;
}

/**
 * How an attempt ended, as a value. `suspended`, `waiting` and `halted` have their records
 * written (node_started and node_suspended, or node_completed) when the handler returns. `cancelled`: stopped by a cancel or a shutdown, its record
 * written. `not_started`: stopped before anything ran, nothing recorded. Every outcome but
 * `not_started` and `deferred` has its attempt records written when the handler returns.
 * `deferred` is never a handler's answer: runNodeAttempt gives it when a handler threw because
 * the store could not take its record (a full disk).
 */
export type AttemptOutcome =
  | {
      status: 'completed';
      output: string;
      /** AI attempts: the tokens the provider reported (its provider's tokens-per-minute budget counts them). */
      tokens?: number;
    }
  | {
      status: 'failed';
      tokens?: number;
      error: string;
      failureKind: string;
      /** `false`: never retried, whatever the policy (bad credentials, no quota ...). */
      retryable?: boolean;
      /** The provider asked to wait this long before trying again. */
      retryAfterMs?: number;
      /** A provider's usage limit that resets at this moment (epoch ms): the run may resume then (quota-resume.ts). */
      resumeAt?: number;
    }
  | { status: 'cancelled' }
  | { status: 'not_started' }
  /** Waits for a person (an approval gate, an interactive loop): the run pauses once nothing else can run. */
  | { status: 'suspended'; approval: ApprovalContext }
  /** A durable timer (a `wait` node): the attempt is continued at `wakeAt` (epoch ms), holding no slot meanwhile. */
  | { status: 'waiting'; wakeAt: number }
  /** The node completed and ends the run `cancelled` with its reason (a `cancel` node). */
  | { status: 'halted'; reason: string; output: string }
  /**
   * A child run it waits for paused on a budget (its attempt ended, recorded as interrupted):
   * the run pauses on the same budget, and the node runs again (resuming the child) when resumed.
   */
  | { status: 'over_budget'; reached: BudgetReached }
  /**
   * The store refused the attempt's record (a full disk): before the node ran, or (a held
   * attempt) at its end. It does not count as an attempt; the node runs again (the held attempt
   * continued) once the store may take writes again.
   */
  | { status: 'deferred'; error: unknown };

/**
 * Runs the attempts of one node kind, which receive the kind's own action. The scheduler knows
 * nothing of kinds: it asks the handler set for a node's handler and awaits an outcome. A new
 * kind is a new `NodeKind` in `supervisor/nodes/` (node-kind.ts), not a change to the scheduler.
 */
export interface NodeHandler<A extends PlannedAction = PlannedAction> {
  runAttempt(attempt: NodeAttempt<A>): Promise<AttemptOutcome>;
  /**
   * The attempt only waits for other runs (a child run, a fan-out of them) whose own nodes take
   * the slots: it is not counted against the global limit, so a parent never starves its children.
   */
  readonly waitsForRuns?: boolean;
}

export interface NodeHandlerSet {
  handlerFor(node: PlannedNode): NodeHandler;
}
