import { readFile } from 'node:fs/promises';
import { killProcessGroup, startedNoLaterThan } from '../../shared/process-group.js';
import { isInterrupted, rebuildRunSnapshot, type NodeSnapshot } from '../../records/index.js';
import type { NewRunEvent, RunEvent } from '../../store/schemas/event.js';
import type { NodeEventFactory } from './node-events.js';
import type { RestoredNode } from './node-table.js';
import { decideRetry } from './retry-policy.js';
import type { RunPlan } from './run-plan.js';

/** Node states rebuilt from a run's event log (by path), plus the events that close interrupted attempts. */
export interface RestoredRun {
  nodes: Map<string, RestoredNode>;
  events: NewRunEvent[];
}

/** An attempt's process is spawned just after its start time is taken. */
const ATTEMPT_SPAWN_SLACK_MS = 5_000;

/**
 * Rebuilds the node states of a run taken over from a supervisor that is gone. Finished nodes
 * stay finished with their output; an attempt that was in flight has its process group killed
 * (confirmed gone) and is closed with an `interrupted` failure, and its node runs again as a new
 * attempt of the same invocation, as does a node whose last attempt was interrupted at shutdown.
 * A node whose last attempt failed with retries left waits out the rest of its retry delay.
 */
export async function restoreRun(
  plan: RunPlan,
  events: readonly RunEvent[],
  factory: NodeEventFactory,
  opts: { previousOwner: string | null; killGraceMs: number },
): Promise<RestoredRun> {
  const snapshot = rebuildRunSnapshot(events);
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const nodes = new Map<string, RestoredNode>();
  const closing = [];
  for (const node of plan.nodes) {
    const snap = snapshot.nodes.get(node.id);
    if (!snap) continue;
    const state: RestoredNode = {
      status: 'pending',
      attempts: snap.attemptsStarted,
      ...(snap.invocation ? { invocation: { id: snap.invocation.id, startedAt: snap.invocation.startedAt } } : {}),
    };
    if (snap.inFlight) {
      const startedAt = snap.inFlight.startedAt ?? new Date().toISOString();
      const pid = snap.inFlight.pid;
      // A pid recorded before a reboot may now belong to an unrelated program: kill the group
      // only if its leader started no later than the attempt did.
      if (pid !== undefined && startedNoLaterThan(pid, Date.parse(startedAt) + ATTEMPT_SPAWN_SLACK_MS)) {
        await killProcessGroup(pid, { graceMs: opts.killGraceMs });
      }
      const invocation = state.invocation ?? { id: snap.inFlight.attemptId ?? node.id, startedAt };
      closing.push(
        factory.interrupted(node, invocation, { id: snap.inFlight.attemptId ?? invocation.id, startedAt }, opts.previousOwner),
      );
    } else if (snap.reusable && (snap.status === 'completed' || snap.reusable.replayed)) {
      state.status = 'completed';
      // Only an output a later node references is read back (a spill file may be large).
      if (plan.referencedOutputs.has(node.id)) state.output = await fullOutput(snap);
    } else if (snap.status === 'completed') {
      state.status = 'completed';
    } else if (snap.status === 'skipped') {
      state.status = 'skipped';
    } else if (snap.status === 'failed' && !isInterrupted(bySeq.get(snap.lastSeq)?.data)) {
      const failure = snap.lifecycle?.status === 'failed' ? snap.lifecycle : undefined;
      const retry = decideRetry(node.retry, { failureKind: failure?.failureKind }, snap.attemptsStarted);
      if (retry.retry) {
        // It was waiting out its retry delay when its supervisor stopped: it waits what is left.
        const failedAt = Date.parse(bySeq.get(snap.lastSeq)?.created_at ?? '') || Date.now();
        state.retryAt = failedAt + retry.delayMs;
      } else {
        state.status = 'failed';
        state.error = failure?.error ?? 'failed';
      }
    }
    nodes.set(node.id, state);
  }
  return { nodes, events: closing };
}

/** The whole output of a finished node: the stored preview, or its spill file when it was cut. */
async function fullOutput(snap: NodeSnapshot): Promise<string> {
  const reusable = snap.reusable!;
  const spill = reusable.persisted?.spillPath;
  if (spill) {
    const text = await readFile(spill, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return reusable.text;
}
