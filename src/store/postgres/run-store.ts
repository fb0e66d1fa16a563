import { CairnError } from '../../shared/errors.js';
import type { GateDecisionAnswer, RunContinuationAnswer, RunStore } from '../runs.js';
import { cancellingJobKinds, gateDecisionJobKinds, type GateDecisionJobKind } from '../schemas/job.js';
import { followUpsOf, sleepFollowUps, type RunFollowUp } from '../rules/run-follow-ups.js';
import {
  acquiredHold, acquireRefusal, mayDelete, mayRelease, mayRenewLease, maySleep, transitionedHold, transitionRefusal, waitingHold,
} from '../rules/run-ownership.js';
import { cancelRequestedAt, decideContinuation, decideGateAnswer, endingOf } from '../rules/run-requests.js';
import { runAdmission } from './run-admission.js';
import { concurrencyRefusal, withPlace } from '../rules/run-concurrency.js';
import { eventStatements } from './events-sql.js';
import { isolationStatements } from './isolation-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runPageStatements } from './run-pages-sql.js';
import { runStatements } from './runs-sql.js';
import { runFileStatements } from './run-files-sql.js';
import type { PgSession, Query } from './session.js';

/**
 * RunStore over the session's pool. Each write reads the run's state under its row lock (SELECT
 * ... FOR NO KEY UPDATE) in the transaction that writes, asks the engine's rules (store/rules/),
 * and stores their decision, exactly as the SQLite backend does.
 */
export function pgRunStore(session: PgSession): RunStore {
  const statements = (q: Query) => ({
    runs: runStatements(q), jobs: jobStatements(q), events: eventStatements(q), isolation: isolationStatements(q),
  });

  /** Stores the follow-ups the rules gave a change, in order. */
  const carryOut = async (q: Query, followUps: readonly RunFollowUp[], now: string): Promise<void> => {
    const { jobs, isolation } = statements(q);
    for (const followUp of followUps) {
      switch (followUp.kind) {
        case 'queue_job':
          if (followUp.onlyIfNone && (await jobs.listByRun(followUp.runId)).some((job) => job.kind === followUp.job)) break;
          if (followUp.notBefore !== undefined) await jobs.insertAt(followUp.job, followUp.runId, followUp.payload, now, followUp.notBefore);
          else await jobs.insert(followUp.job, followUp.runId, followUp.payload, now);
          break;
        case 'close_queued':
          await jobs.closeQueued(followUp.runId, followUp.job, followUp.result);
          break;
        case 'release_isolation':
          await isolation.release(followUp.runId, now);
          break;
        case 'start_waiting':
          await runAdmission(q).startWaiting(followUp.workflowName, followUp.key, followUp.endedRunId, now);
          break;
      }
    }
  };

  const endingOfRun = async (q: Query, runId: string) => endingOf(await jobStatements(q).openOfKinds(runId, cancellingJobKinds));

  return {
    createRun: (run) =>
      session.write('create a run', async (q) => {
        const now = session.now();
        if (run.parent) {
          const existing = await runStatements(q).child(run.parent.runId, run.parent.nodeId, run.parent.childIndex);
          if (existing) return existing;
        }
        const admitted = await runAdmission(q).admit(run, now);
        if ('refused' in admitted) throw concurrencyRefusal(run, admitted);
        return admitted.run;
      }),

    getRun: (id) => session.read('read a run', (q) => runStatements(q).get(id)),
    getChildRun: (parentRunId, nodeId, childIndex) =>
      session.read('read a child run', (q) => runStatements(q).child(parentRunId, nodeId, childIndex)),
    listChildRuns: (parentRunId, nodeId) => session.read('list child runs', (q) => runStatements(q).children(parentRunId, nodeId)),
    listOpenDescendants: (runId) => session.read('list the open descendants of a run', (q) => runStatements(q).openDescendants(runId)),
    getRunDefinition: (id) => session.read('read a run definition', (q) => runStatements(q).definition(id)),
    listRuns: (query) => session.read('list runs', (q) => runStatements(q).list(query)),
    listOpenRunsOf: (conversationId) => session.read("list a conversation's open runs", (q) => runStatements(q).openOf(conversationId)),
    listRunPage: (query) => session.read('list a page of runs', (q) => runPageStatements(q).page(query)),
    listDashboardRuns: (query) => session.read('list the dashboard runs', (q) => runPageStatements(q).dashboard(query)),
    countRuns: (status) => session.read('count runs', (q) => runStatements(q).count(status)),

    acquireRun: (input) =>
      session.write('acquire a run', async (q) => {
        const { runs, events } = statements(q);
        const now = session.now();
        const held = await runs.hold(input.runId);
        if (!held || acquireRefusal(held, input, now) !== undefined) return undefined;
        const admission = runAdmission(q);
        const before = input.resume ? await runs.get(input.runId) : undefined;
        const place = before && (await admission.decideResume(before));
        if (place?.outcome === 'refuse') throw concurrencyRefusal(before!, { refused: place.reason, holders: place.holders });
        const hold = acquiredHold(held, input, now, session.now(input.leaseMs));
        const run = await runs.acquire(input.runId, place?.outcome === 'wait' ? waitingHold(hold) : hold, {
          definition: input.definition,
          metadataPatch: withPlace(input.metadataPatch, before, place),
        });
        await events.append(input.events, now);
        if (place?.outcome === 'wait') await admission.resumeWaits(run, place.cancel, now);
        await carryOut(q, followUpsOf({ run, by: 'acquire', status: input.status, now }), now);
        return input.events.length ? ((await runs.get(run.id)) ?? run) : run;
      }),

    renewRunLeases: async (ownerId, runIds, leaseMs) =>
      runIds.length === 0
        ? 0
        : session.write('renew run leases', async (q) => {
            const runs = runStatements(q);
            const renewed = (await runs.holds(runIds)).filter((run) => mayRenewLease(run, ownerId));
            await runs.renew(renewed.map((run) => run.id), session.now(leaseMs));
            return renewed.length;
          }),

    releaseRuns: async (ownerId, runIds) => {
      if (runIds.length === 0) return;
      await session.write('release runs', async (q) => {
        const runs = runStatements(q);
        for (const run of await runs.holds(runIds)) if (mayRelease(run, ownerId)) await runs.release(run.id);
      });
    },

    listRunsNotLeasedBy: (ownerId, status) =>
      session.read('list runs to take over', (q) => runStatements(q).listNotLeasedBy(ownerId, status, session.now())),

    getCancelRequestedAt: (runId) =>
      session.read('read the cancel request of a run', async (q) => {
        const { runs, jobs } = statements(q);
        const recorded = await runs.cancelRequestedAt(runId);
        if (recorded !== null) return recorded;
        const queued = await jobs.openOfKinds(runId, cancellingJobKinds);
        return cancelRequestedAt(recorded, queued, queued ? (await runs.get(runId))?.status : undefined);
      }),

    deleteRun: (runId, fromStatuses) =>
      session.write('delete a run', async (q) => {
        const runs = runStatements(q);
        if (!mayDelete(await runs.hold(runId), fromStatuses)) return false;
        // Its captured files go with it; contents no other run names are forgotten.
        const files = runFileStatements(q);
        const hashes = await files.hashes(runId);
        const removed = await runs.remove(runId);
        await files.forgetUnused(hashes);
        return removed;
      }),

    transitionRun: (input) =>
      session.write('change the state of a run', async (q) => {
        const { runs, events } = statements(q);
        const now = session.now();
        const refusal = transitionRefusal(await runs.hold(input.runId), input.ownerId, input.status);
        if (refusal === 'not_owner') throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} is not owned by ${input.ownerId}`);
        if (refusal === 'ended') throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} has ended; only a resume carries it on`);
        const run = await runs.transition(input.runId, transitionedHold(input, now), {
          ...(input.error !== undefined ? { error: input.error } : {}),
          ...(input.metadataPatch ? { metadataPatch: input.metadataPatch } : {}),
        });
        await events.append(input.events, now);
        await carryOut(q, followUpsOf({ run, by: 'transition', status: input.status, now }), now);
        return input.events.length ? ((await runs.get(run.id)) ?? run) : run;
      }),

    sleepRun: (input) =>
      session.write('let a run sleep', async (q) => {
        const runs = runStatements(q);
        const now = session.now();
        if (!maySleep(await runs.hold(input.runId), input.ownerId)) return false;
        await runs.sleep(input.runId, now);
        await carryOut(q, sleepFollowUps(input.runId, input.wakeAt), now);
        return true;
      }),

    requestGateDecision: (input) =>
      session.write('queue the answer to a gate', async (q): Promise<GateDecisionAnswer> => {
        const { runs, jobs } = statements(q);
        // The run's row lock first: two answers sent together queue one after the other.
        await runs.hold(input.runId);
        const run = await runs.get(input.runId);
        const open = run ? await jobs.openOfKinds(run.id, gateDecisionJobKinds) : undefined;
        const decision = decideGateAnswer(run, {
          ending: run ? await endingOfRun(q, run.id) : undefined,
          openAnswer: open?.kind as GateDecisionJobKind | undefined,
        });
        if (!('queue' in decision)) return decision;
        await jobs.insert(input.kind, decision.run.id, input.payload, session.now());
        return { queued: true, run: decision.run };
      }),

    requestRunContinuation: (input) =>
      session.write('queue a job that carries a run on', async (q): Promise<RunContinuationAnswer> => {
        const { runs, jobs } = statements(q);
        await runs.hold(input.runId);
        const run = await runs.get(input.runId);
        const decision = decideContinuation(run, input.fromStatuses, run ? await endingOfRun(q, run.id) : undefined);
        if (!('queue' in decision)) return decision;
        const place = await runAdmission(q).decideResume(decision.run);
        if (place?.outcome === 'refuse') return { queued: false, run: decision.run, refused: { refused: place.reason, holders: place.holders } };
        return { queued: true, run: decision.run, job: await jobs.insert(input.kind, decision.run.id, input.payload, session.now()) };
      }),
  };
}
