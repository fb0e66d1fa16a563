import { CairnError } from '../../shared/errors.js';
import { concurrencyRefusal, withPlace } from '../rules/run-concurrency.js';
import type { GateDecisionAnswer, RunContinuationAnswer, RunStore } from '../runs.js';
import { cancellingJobKinds, gateDecisionJobKinds, type GateDecisionJobKind } from '../schemas/job.js';
import { followUpsOf, sleepFollowUps, type RunFollowUp } from '../rules/run-follow-ups.js';
import {
  acquiredHold, acquireRefusal, mayDelete, mayRelease, mayRenewLease, maySleep, transitionedHold, transitionRefusal, waitingHold,
} from '../rules/run-ownership.js';
import { cancelRequestedAt, decideContinuation, decideGateAnswer, endingOf } from '../rules/run-requests.js';
import { eventStatements } from './events-sql.js';
import { isolationStatements } from './isolation-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';
import { runFileStatements } from './run-files-sql.js';
import { runPageStatements } from './run-pages-sql.js';
import { runAdmission } from './run-admission.js';
import type { SqliteSession } from './session.js';

/**
 * RunStore over the session's connection. Changes that also write a job or events are one
 * transaction. What a change may do, and what it brings with it, is decided by the engine's rules
 * (store/rules/): each write reads the run's state in its transaction (BEGIN IMMEDIATE: no other
 * writer between the read and the write), asks the rules, and stores their decision.
 */
export function sqliteRunStore(session: SqliteSession): RunStore {
  const runs = runStatements(session.db);
  const pages = runPageStatements(session.db);
  const jobs = jobStatements(session.db);
  const events = eventStatements(session.db);
  const isolation = isolationStatements(session.db);
  const admission = runAdmission(session.db);
  const files = runFileStatements(session.db);

  /** Stores the follow-ups the rules gave a change, in order. */
  const carryOut = (followUps: readonly RunFollowUp[], now: string): void => {
    for (const followUp of followUps) {
      switch (followUp.kind) {
        case 'queue_job':
          if (followUp.onlyIfNone && jobs.listByRun(followUp.runId).some((job) => job.kind === followUp.job)) break;
          if (followUp.notBefore !== undefined) jobs.insertAt(followUp.job, followUp.runId, followUp.payload, now, followUp.notBefore);
          else jobs.insert(followUp.job, followUp.runId, followUp.payload, now);
          break;
        case 'close_queued':
          jobs.closeQueued(followUp.runId, followUp.job, followUp.result);
          break;
        case 'release_isolation':
          isolation.release(followUp.runId, now);
          break;
        case 'start_waiting':
          admission.startWaiting(followUp.workflowName, followUp.key, followUp.endedRunId, now);
          break;
      }
    }
  };

  /** The cancel or abandon of the run still open (queued, or claimed and not carried out), if any. */
  const endingOfRun = (runId: string) => endingOf(jobs.openOfKinds(runId, cancellingJobKinds));

  return {
    createRun: (run) =>
      session.write('create a run', () => {
        const now = session.now();
        if (run.parent) {
          const existing = runs.child(run.parent.runId, run.parent.nodeId, run.parent.childIndex);
          if (existing) return existing;
        }
        const admitted = admission.admit(run, now);
        if ('refused' in admitted) throw concurrencyRefusal(run, admitted);
        return admitted.run;
      }),

    getRun: (id) => session.read('read a run', () => runs.get(id)),

    getChildRun: (parentRunId, nodeId, childIndex) =>
      session.read('read a child run', () => runs.child(parentRunId, nodeId, childIndex)),

    listChildRuns: (parentRunId, nodeId) => session.read('list child runs', () => runs.children(parentRunId, nodeId)),

    listOpenDescendants: (runId) => session.read('list the open descendants of a run', () => runs.openDescendants(runId)),

    getRunDefinition: (id) => session.read('read a run definition', () => runs.definition(id)),

    listRuns: (query) => session.read('list runs', () => runs.list(query)),

    listOpenRunsOf: (conversationId) => session.read("list a conversation's open runs", () => runs.openOf(conversationId)),

    listRunPage: (query) => session.read('list a page of runs', () => pages.page(query)),

    listDashboardRuns: (query) => session.read('list the dashboard runs', () => pages.dashboard(query)),

    countRuns: (status) => session.read('count runs', () => runs.count(status)),

    acquireRun: (input) =>
      session.write('acquire a run', () => {
        const now = session.now();
        const held = runs.hold(input.runId);
        if (!held || acquireRefusal(held, input, now) !== undefined) return undefined;
        const before = input.resume ? runs.get(input.runId) : undefined;
        const place = before && admission.decideResume(before);
        if (place?.outcome === 'refuse') throw concurrencyRefusal(before!, { refused: place.reason, holders: place.holders });
        const hold = acquiredHold(held, input, now, session.now(input.leaseMs));
        const run = runs.acquire(input.runId, place?.outcome === 'wait' ? waitingHold(hold) : hold, {
          definition: input.definition,
          metadataPatch: withPlace(input.metadataPatch, before, place),
        });
        events.append(input.events, now);
        if (place?.outcome === 'wait') admission.resumeWaits(run, place.cancel, now);
        carryOut(followUpsOf({ run, by: 'acquire', status: input.status, now }), now);
        // Read again after the events: the attempts they close may have added to its totals.
        return input.events.length ? (runs.get(run.id) ?? run) : run;
      }),

    // No run to renew (an idle supervisor, each heartbeat) takes no write lock.
    renewRunLeases: async (ownerId, runIds, leaseMs) =>
      runIds.length === 0
        ? 0
        : session.write('renew run leases', () => {
            const leaseUntil = session.now(leaseMs);
            const renewed = runs.holds(runIds).filter((run) => mayRenewLease(run, ownerId));
            renewed.forEach((run) => runs.renew(run.id, leaseUntil));
            return renewed.length;
          }),

    releaseRuns: async (ownerId, runIds) => {
      await session.write('release runs', () => {
        for (const runId of runIds) if (mayRelease(runs.hold(runId), ownerId)) runs.release(runId);
      });
    },

    listRunsNotLeasedBy: (ownerId, status) =>
      session.read('list runs to take over', () => runs.listNotLeasedBy(ownerId, status, session.now())),

    getCancelRequestedAt: (runId) =>
      session.read('read the cancel request of a run', () => {
        const recorded = runs.cancelRequestedAt(runId);
        if (recorded !== null) return recorded;
        const queued = jobs.openOfKinds(runId, cancellingJobKinds);
        return cancelRequestedAt(recorded, queued, queued ? runs.get(runId)?.status : undefined);
      }),

    deleteRun: (runId, fromStatuses) =>
      session.write('delete a run', () => {
        if (!mayDelete(runs.hold(runId), fromStatuses)) return false;
        // Its captured files go with it; contents no other run names are forgotten.
        const hashes = files.hashes(runId);
        const removed = runs.remove(runId);
        files.forgetUnused(hashes);
        return removed;
      }),

    transitionRun: (input) =>
      session.write('change the state of a run', () => {
        const now = session.now();
        const refusal = transitionRefusal(runs.hold(input.runId), input.ownerId, input.status);
        if (refusal === 'not_owner') throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} is not owned by ${input.ownerId}`);
        if (refusal === 'ended') throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} has ended; only a resume carries it on`);
        const run = runs.transition(input.runId, transitionedHold(input, now), {
          ...(input.error !== undefined ? { error: input.error } : {}),
          ...(input.metadataPatch ? { metadataPatch: input.metadataPatch } : {}),
        });
        events.append(input.events, now);
        carryOut(followUpsOf({ run, by: 'transition', status: input.status, now }), now);
        return input.events.length ? (runs.get(run.id) ?? run) : run;
      }),

    sleepRun: (input) =>
      session.write('let a run sleep', () => {
        const now = session.now();
        if (!maySleep(runs.hold(input.runId), input.ownerId)) return false;
        runs.sleep(input.runId, now);
        carryOut(sleepFollowUps(input.runId, input.wakeAt), now);
        return true;
      }),

    requestGateDecision: (input) =>
      session.write('queue the answer to a gate', (): GateDecisionAnswer => {
        const run = runs.get(input.runId);
        const open = run ? jobs.openOfKinds(run.id, gateDecisionJobKinds) : undefined;
        const decision = decideGateAnswer(run, {
          ending: run ? endingOfRun(run.id) : undefined,
          openAnswer: open?.kind as GateDecisionJobKind | undefined,
        });
        if (!('queue' in decision)) return decision;
        jobs.insert(input.kind, decision.run.id, input.payload, session.now());
        return { queued: true, run: decision.run };
      }),

    requestRunContinuation: (input) =>
      session.write('queue a job that carries a run on', (): RunContinuationAnswer => {
        const run = runs.get(input.runId);
        const decision = decideContinuation(run, input.fromStatuses, run ? endingOfRun(run.id) : undefined);
        if (!('queue' in decision)) return decision;
        const place = admission.decideResume(decision.run);
        if (place?.outcome === 'refuse') return { queued: false, run: decision.run, refused: { refused: place.reason, holders: place.holders } };
        return { queued: true, run: decision.run, job: jobs.insert(input.kind, decision.run.id, input.payload, session.now()) };
      }),
  };
}
