import { ranOnThisHost } from '../../shared/supervisor-id.js';
import {
  attemptEndedEvent,
  cacheActionOfEventType,
  isInterrupted,
  rebuildRunSnapshot,
  type AttemptRef,
  type InFlightAttempt,
  type NodeSnapshot,
} from '../../records/index.js';
import { killProcessGroup, startedNoLaterThan } from '../../shared/process-group.js';
import type { NewRunEvent, RunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import { invocationIdentityOf } from './node-handler.js';
import type { RestoredNode } from './node-table.js';
import { decideRetry } from './retry-policy.js';
import type { PlannedNode, RunPlan } from './run-plan.js';
import { fullOutput } from '../../records/full-output.js';
import type { NodeDescriptor } from '../../records/schemas/node-descriptor.js';
import { attemptRefOf, type AttemptFacts } from '../../worker/attempt-ref.js';

/** Node states rebuilt from a run's event log (by path), plus the events that close interrupted attempts. */
export interface RestoredRun {
  nodes: Map<string, RestoredNode>;
  events: NewRunEvent[];
}

/**
 * What a take-over asks of the node kinds (supervisor/nodes/node-kinds.ts): the paths under a node
 * where its inner attempts run (a loop's body, an in-run fan-out's instances), which are closed
 * like a top-level attempt; and whether a node cut short between passes goes on with the same
 * invocation (a loop, whose recorded iterations are its progress) instead of running anew.
 */
export interface RestoreKinds {
  innerPathPrefixes(node: PlannedNode): readonly string[];
  continuesAfterInterruption(node: PlannedNode): boolean;
}

/** An attempt's process is spawned just after its start time is taken. */
const ATTEMPT_SPAWN_SLACK_MS = 5_000;
/**
 * A node found running this many times in a row when its supervisor died is not run again: it
 * is most likely what kills the supervisor (it kills the process, or exhausts the machine), and
 * running it once more would only start the crash over.
 */
export const MAX_SUPERVISOR_LOSSES = 3;
/** Flat key on the record that closes an attempt whose supervisor died while it ran. */
const SUPERVISOR_LOST_KEY = 'supervisor_lost';

/**
 * Rebuilds the node states of a run taken over from a supervisor that is gone. Finished nodes
 * stay finished with their output; an attempt that was in flight has its process group killed
 * (confirmed gone, all groups at once) and is closed with an `interrupted` failure, and its node
 * runs again as a new attempt of the same invocation, as does a node whose last attempt was
 * interrupted at shutdown. A node whose last attempt failed with retries left waits out the rest
 * of its retry delay. A node that was running at each of its last MAX_SUPERVISOR_LOSSES
 * supervisor deaths fails instead of running again. When the run's cancel was requested, in-flight
 * attempts are closed as cancelled (the user's cancel is final), not as interrupted.
 *
 * Resume uses the same reading. The run's last `workflow_resumed` event starts a new pass: a node
 * whose latest row is older than it is pending again in this pass. If that row was a success
 * (or a replay of one), the node carries it as `prior`, for the scheduler to replay, reset or
 * invalidate when the node is decided; a failed or skipped node simply runs (is decided) again,
 * as a new invocation. Rows after the boundary (a supervisor died during the resumed pass) are
 * read as for any take-over. Failed rows add usage to the snapshot but never become reusable.
 */
export async function restoreRun(
  run: Pick<Run, 'id' | 'conversation_id'>,
  plan: RunPlan,
  events: readonly RunEvent[],
  opts: {
    previousOwner: string | null;
    killGraceMs: number;
    /** The run's cancel was requested: in-flight attempts are closed as cancelled, for good. */
    cancelling?: boolean;
    kinds: RestoreKinds;
  },
): Promise<RestoredRun> {
  const snapshot = rebuildRunSnapshot(events);
  const passStart = lastResumeSeq(events);
  const rerun = rerunNodesOf(events, passStart);
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const nodes = new Map<string, RestoredNode>();
  const closing: NewRunEvent[] = [];
  const kills: Promise<void>[] = [];
  // The previous owner's processes can be killed only from its own host: a pid recorded on
  // another host names nothing here, or an unrelated program (docs/postgres.md).
  const local = ranOnThisHost(opts.previousOwner);
  for (const node of plan.nodes) {
    const snap = snapshot.nodes.get(node.id);
    if (!snap) continue;
    if (snap.lastSeq < passStart && !snap.inFlight) {
      // A node the resume asked to run again (a fan-out's failed items retried) keeps no prior success.
      const interrupted = isInterrupted(bySeq.get(snap.lastSeq)?.data);
      nodes.set(node.id, rerun.has(node.id) ? { status: 'pending', attempts: 0 } : await fromEarlierPass(snap, node, interrupted, plan.referencedOutputs.has(node.id), opts.kinds));
      continue;
    }
    const state: RestoredNode = {
      status: 'pending',
      attempts: snap.attemptsStarted,
      ...(snap.invocation ? { invocation: invocationIdentityOf(snap.invocation) } : {}),
    };
    if (snap.inFlight) {
      const startedAt = snap.inFlight.startedAt ?? new Date().toISOString();
      const pid = snap.inFlight.pid;
      // A pid recorded before a reboot may now belong to an unrelated program: kill the group
      // only if its leader started no later than the attempt did.
      if (pid !== undefined && local && startedNoLaterThan(pid, Date.parse(startedAt) + ATTEMPT_SPAWN_SLACK_MS)) {
        kills.push(killProcessGroup(pid, { graceMs: opts.killGraceMs }));
      }
      const invocation = state.invocation ?? { id: snap.inFlight.attemptId ?? node.id, startedAt };
      const ref = lostAttemptRef(run, node.id, node.descriptor, { ...invocation, loopPath: [] }, snap.inFlight, startedAt);
      const losses = supervisorLosses(events, node.id, invocation.id) + 1;
      if (opts.cancelling) {
        closing.push(attemptEndedEvent(ref, { status: 'failed', error: 'Cancelled by user', failureKind: 'cancelled', retryable: false }));
      } else if (losses >= MAX_SUPERVISOR_LOSSES) {
        const error = crashLoopError(node, losses, opts.previousOwner);
        closing.push(attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'fatal', retryable: false }));
        Object.assign(state, { status: 'failed', error });
      } else {
        closing.push(closedBySupervisorLoss(ref, opts.previousOwner));
      }
    } else if (snap.reusable && (snap.status === 'completed' || snap.reusable.replayed)) {
      state.status = 'completed';
      // Only an output a later node references is read back (a spill file may be large).
      if (plan.referencedOutputs.has(node.id)) state.output = await fullOutput(snap);
    } else if (cacheActionOfEventType(snap.lastEventType) !== undefined) {
      // Reset or invalidated in this pass and not run since: it runs, as a new invocation.
      Object.assign(state, { attempts: 0 });
      delete state.invocation;
    } else if (snap.status === 'completed') {
      state.status = 'completed';
    } else if (snap.status === 'skipped') {
      state.status = 'skipped';
    } else if (snap.status === 'suspended') {
      // At a gate or a wait when the run was let go: the same attempt is continued (it asks
      // again from its records, or wakes at the moment its invocation fixed).
      const attemptId = (bySeq.get(snap.lastSeq)?.data.execution as { attempt?: { id?: unknown } } | undefined)?.attempt?.id;
      if (typeof attemptId === 'string' && state.invocation) {
        state.heldAttempt = { id: attemptId, number: Math.max(1, snap.attemptsStarted) };
      }
    } else if (snap.status === 'failed' && !isInterrupted(bySeq.get(snap.lastSeq)?.data)) {
      const failure = snap.lifecycle?.status === 'failed' ? snap.lifecycle : undefined;
      const retry = decideRetry(
        node.retry,
        { failureKind: failure?.failureKind, retryable: failure?.retryable, retryAfterMs: failure?.providerFailure?.retryAfterMs },
        snap.attemptsStarted,
      );
      if (retry.retry) {
        // It was waiting out its retry delay when its supervisor stopped: it waits what is left.
        const failedAt = Date.parse(bySeq.get(snap.lastSeq)?.created_at ?? '') || Date.now();
        state.retryAt = failedAt + retry.delayMs;
      } else {
        state.status = 'failed';
        state.error = failure?.error ?? 'failed';
        const provider = failure?.providerFailure;
        const resumeAt = provider?.class === 'quota_exhausted' && provider.resetAt !== undefined ? Date.parse(provider.resetAt) : NaN;
        if (!Number.isNaN(resumeAt)) state.resumeAt = resumeAt;
      }
    }
    nodes.set(node.id, state);
  }
  closing.push(...closeLoopBodies(run, plan, snapshot.nodes, kills, opts));
  // Every orphaned group at once: a take-over waits one kill grace period, not one per node.
  await Promise.all(kills);
  return { nodes, events: closing };
}

/**
 * Kills every attempt in flight in the run's events (any path, loops and fan-out instances
 * included), as a take-over does, without its plan: for a take-over whose run cannot be built (an
 * unreadable definition), which must not end the run, and so free what it holds, while the
 * processes it left still run. Only groups on this host whose leader started no later than the
 * attempt (see restoreRun).
 */
export async function killOrphansOf(events: readonly RunEvent[], opts: { previousOwner: string | null; killGraceMs: number }): Promise<void> {
  if (!ranOnThisHost(opts.previousOwner)) return;
  const kills: Promise<void>[] = [];
  for (const snap of rebuildRunSnapshot(events).nodes.values()) {
    const pid = snap.inFlight?.pid;
    const startedAt = Date.parse(snap.inFlight?.startedAt ?? '') || Date.now();
    if (pid !== undefined && startedNoLaterThan(pid, startedAt + ATTEMPT_SPAWN_SLACK_MS)) kills.push(killProcessGroup(pid, { graceMs: opts.killGraceMs }));
  }
  await Promise.all(kills);
}

/**
 * Attempts inside loops (a loop's body, a loop_group's body nodes, their completion checks: paths
 * under a loop node's) and inside an in-run fan-out's instances that were in flight: their process groups are killed and they are closed
 * like a top-level attempt, so the loop, continued, runs that iteration's unfinished part again.
 */
function closeLoopBodies(
  run: Pick<Run, 'id' | 'conversation_id'>,
  plan: RunPlan,
  snapshots: ReadonlyMap<string, NodeSnapshot>,
  kills: Promise<void>[],
  opts: { previousOwner: string | null; killGraceMs: number; cancelling?: boolean; kinds: RestoreKinds },
): NewRunEvent[] {
  // Paths under a loop (`<loop>/...`) and under an in-run fan-out's instances (`<node>[i]`, `<node>[i]/...`).
  const prefixes = plan.nodes.flatMap((n) => opts.kinds.innerPathPrefixes(n));
  if (prefixes.length === 0) return [];
  const closing: NewRunEvent[] = [];
  for (const snap of snapshots.values()) {
    if (!snap.inFlight || !snap.node || !snap.invocation || !prefixes.some((prefix) => snap.path.startsWith(prefix))) continue;
    const startedAt = snap.inFlight.startedAt ?? new Date().toISOString();
    const pid = snap.inFlight.pid;
    if (pid !== undefined && ranOnThisHost(opts.previousOwner) && startedNoLaterThan(pid, Date.parse(startedAt) + ATTEMPT_SPAWN_SLACK_MS)) {
      kills.push(killProcessGroup(pid, { graceMs: opts.killGraceMs }));
    }
    const ref = lostAttemptRef(run, snap.path, snap.node, snap.invocation, snap.inFlight, startedAt);
    closing.push(
      opts.cancelling
        ? attemptEndedEvent(ref, { status: 'failed', error: 'Cancelled by user', failureKind: 'cancelled', retryable: false })
        : closedBySupervisorLoss(ref, opts.previousOwner),
    );
  }
  return closing;
}

/**
 * The seq of the run's last resume (0 when it was never resumed): a `workflow_resumed` written by
 * `resume_run`, which names the status it resumed from. The one a gate's answer writes carries no
 * `resumedFrom`: the run continues the same pass.
 */
function lastResumeSeq(events: readonly RunEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.event_type === 'workflow_resumed' && typeof event.data.resumedFrom === 'string') return event.seq;
  }
  return 0;
}

/** The nodes the last resume asked to run again whatever they did before (`rerunNodes`, a fan-out retry). */
function rerunNodesOf(events: readonly RunEvent[], passStart: number): Set<string> {
  const resumed = passStart > 0 ? events.find((e) => e.seq === passStart) : undefined;
  const named = resumed?.data.rerunNodes;
  return new Set(Array.isArray(named) ? named.filter((n): n is string => typeof n === 'string') : []);
}

/** A node settled before the resumed pass began: pending again, carrying a prior success if it had one. */
async function fromEarlierPass(
  snap: NodeSnapshot, node: PlannedNode, interrupted: boolean, referenced: boolean, kinds: RestoreKinds,
): Promise<RestoredNode> {
  // A loop cut short between iterations (its run paused on a budget, or shut down) goes on with
  // the same invocation, whose recorded iterations are its progress; anything else runs anew.
  if (kinds.continuesAfterInterruption(node) && interrupted && snap.invocation) {
    return { status: 'pending', attempts: snap.attemptsStarted, invocation: invocationIdentityOf(snap.invocation) };
  }
  const state: RestoredNode = { status: 'pending', attempts: 0 };
  if (snap.reusable && (snap.status === 'completed' || snap.reusable.replayed)) {
    state.prior = snap.reusable;
    if (referenced) state.output = await fullOutput(snap);
  }
  return state;
}

/** Closes an attempt whose supervisor died while it ran (its process group already killed). */
function closedBySupervisorLoss(ref: AttemptRef, previousOwner: string | null): NewRunEvent {
  const error = `Attempt interrupted: supervisor ${previousOwner ?? '(unknown)'} stopped while it ran; the node runs again`;
  const event = attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'transient', interrupted: true });
  return { ...event, data: { ...event.data, [SUPERVISOR_LOST_KEY]: true } };
}

/** The record reference of an attempt a dead supervisor left in flight (worker/attempt-ref.ts), with what its start recorded. */
function lostAttemptRef(
  run: Pick<Run, 'id' | 'conversation_id'>,
  path: string,
  node: NodeDescriptor,
  invocation: AttemptFacts['invocation'],
  inFlight: InFlightAttempt,
  startedAt: string,
): AttemptRef {
  const facts: AttemptFacts = { runId: run.id, conversationId: run.conversation_id, path, invocation, attempt: { id: inFlight.attemptId ?? invocation.id, number: 0 } };
  return { ...attemptRefOf(facts, node, startedAt), ...startedFactsOf(inFlight) };
}

/**
 * What the record closing an attempt a dead supervisor left keeps of its `node_started`: the
 * checkout it found, and an AI attempt's binding and spend (its measurements keep the
 * availability they started with: accounting rule 1).
 */
function startedFactsOf(inFlight: InFlightAttempt): Pick<AttemptRef, 'attemptCheckout' | 'binding' | 'spend'> {
  const started = inFlight.started;
  if (started === undefined) return {};
  return {
    binding: started.binding,
    spend: started.spend,
    ...(started.checkoutStart !== undefined ? { attemptCheckout: started.checkoutStart } : {}),
  };
}

/** How many attempts of this invocation were already closed because their supervisor died. */
function supervisorLosses(events: readonly RunEvent[], path: string, invocationId: string): number {
  let count = 0;
  for (const e of events) {
    if (e.step_name !== path || e.data[SUPERVISOR_LOST_KEY] !== true) continue;
    const execution = e.data.execution as { invocation?: { id?: string } } | undefined;
    if (execution?.invocation?.id === invocationId) count++;
  }
  return count;
}

function crashLoopError(node: PlannedNode, losses: number, previousOwner: string | null): string {
  return (
    `Node '${node.id}' was running each of the last ${losses} times its supervisor died ` +
    `(last: ${previousOwner ?? 'unknown'}); it is not run again, since it is most likely what stops the supervisor ` +
    `(it kills the supervisor's process, or exhausts memory). Check the node's command, then run the workflow again.`
  );
}
