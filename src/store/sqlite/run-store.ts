import { CairnError } from '../../shared/errors.js';
import type { GateDecisionAnswer, RunContinuationAnswer, RunEnding, RunStore } from '../runs.js';
import { cancellingJobKinds, gateDecisionJobKinds, isCancellingJobKind, type GateDecisionJobKind } from '../schemas/job.js';
import { eventStatements } from './events-sql.js';
import { isolationStatements } from './isolation-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';
import { runPageStatements } from './run-pages-sql.js';
import { conversationStatements } from './conversations-sql.js';
import { terminalRunStatuses, type Run } from '../schemas/run.js';
import type { SqliteSession } from './session.js';

/** RunStore over the session's connection. Changes that also write a job or events are one transaction. */
export function sqliteRunStore(session: SqliteSession): RunStore {
  const runs = runStatements(session.db);
  const pages = runPageStatements(session.db);
  const jobs = jobStatements(session.db);
  const events = eventStatements(session.db);
  const conversations = conversationStatements(session.db);

  /**
   * A run dispatched from a chat reports its end there: the transaction that makes it terminal
   * queues a `workflow_result` job, so the report survives any restart between the two.
   */
  const reportToChat = (run: Run, now: string): void => {
    const parent = run.metadata.parent_conversation_id;
    if (!parent || !terminalRunStatuses.includes(run.status)) return;
    if (jobs.listByRun(run.id).some((job) => job.kind === 'workflow_result')) return;
    jobs.insert('workflow_result', run.id, { conversationId: parent }, now);
  };
  const isolation = isolationStatements(session.db);
  /** A run that ended has nothing to wake for: its queued `wake_run` is closed with it. */
  const dropWakeUpIfEnded = (run: Run, now: string): void => {
    if (terminalRunStatuses.includes(run.status)) jobs.closeQueued(run.id, 'wake_run', `run ended ${run.status} at ${now}`);
  };

  /**
   * A child run that pauses or ends tells its parent durably: the transaction that changes its
   * status queues a `child_run_settled` job on the parent run (supervisor/jobs/child-run-settled.ts).
   */
  const tellParent = (run: Run, now: string): void => {
    if (run.parent_run_id === null || (run.status !== 'paused' && !terminalRunStatuses.includes(run.status))) return;
    jobs.insert('child_run_settled', run.parent_run_id, { childRunId: run.id, status: run.status }, now);
  };

  /** The cancel or abandon of the run still open (queued, or claimed and not carried out), if any. */
  const endingOf = (runId: string): RunEnding | undefined => {
    const open = jobs.openOfKinds(runId, cancellingJobKinds);
    return open && isCancellingJobKind(open.kind) ? { kind: open.kind, requestedAt: open.created_at } : undefined;
  };

  return {
    createRun: (run) =>
      session.write('create a run', () => {
        const now = session.now();
        if (run.parent) {
          const existing = runs.child(run.parent.runId, run.parent.nodeId, run.parent.childIndex);
          if (existing) return existing;
        }
        if (run.conversation) conversations.insert(run.conversation, now);
        const created = runs.insert(run, now);
        jobs.insert('start_run', run.id, {}, now);
        return created;
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
        const run = runs.acquire({
          runId: input.runId,
          ownerId: input.ownerId,
          leaseUntil: session.now(input.leaseMs),
          now,
          fromStatuses: input.fromStatuses,
          status: input.status,
          previousOwner: input.previousOwner ?? null,
          resume: input.resume ?? false,
          definition: input.definition,
          metadataPatch: input.metadataPatch,
          onlyUnowned: input.onlyUnowned ?? false,
        });
        if (run) {
          events.append(input.events, now);
          reportToChat(run, now);
          dropWakeUpIfEnded(run, now);
          if (input.status !== 'running') tellParent(run, now);
        }
        // Read again after the events: the attempts they close may have added to its totals.
        return run && input.events.length ? (runs.get(run.id) ?? run) : run;
      }),

    // No run to renew (an idle supervisor, each heartbeat) takes no write lock.
    renewRunLeases: async (ownerId, runIds, leaseMs) =>
      runIds.length === 0 ? 0 : session.write('renew run leases', () => runs.renew(ownerId, runIds, session.now(leaseMs))),

    releaseRuns: async (ownerId, runIds) => {
      await session.write('release runs', () => runIds.forEach((id) => runs.release(ownerId, id)));
    },

    listRunsNotLeasedBy: (ownerId, status) =>
      session.read('list runs to take over', () => runs.listNotLeasedBy(ownerId, status, session.now())),

    // A cancel or abandon queued while no supervisor was there to claim it counts as well: a
    // take-over or a start that reads this before the claim must not run the run on.
    getCancelRequestedAt: (runId) =>
      session.read('read the cancel request of a run', () => {
        const recorded = runs.cancelRequestedAt(runId);
        if (recorded !== null) return recorded;
        const queued = jobs.openOfKinds(runId, cancellingJobKinds);
        const status = queued && runs.get(runId)?.status;
        return status && !terminalRunStatuses.includes(status) ? queued.created_at : null;
      }),

    deleteRun: (runId, fromStatuses) =>
      session.write('delete a run', () => runs.remove(runId, fromStatuses)),

    transitionRun: (input) =>
      session.write('change the state of a run', () => {
        const now = session.now();
        const run = runs.transition({
          runId: input.runId,
          ownerId: input.ownerId,
          now,
          status: input.status,
          error: input.error,
          metadataPatch: input.metadataPatch,
          release: input.release ?? false,
        });
        if (!run) {
          throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} is not owned by ${input.ownerId}`);
        }
        events.append(input.events, now);
        reportToChat(run, now);
        dropWakeUpIfEnded(run, now);
        if (input.status) tellParent(run, now);
        // A run that ended holds no environment: its worktree stays, unlocked.
        if (input.status && terminalRunStatuses.includes(input.status)) isolation.release(input.runId, now);
        return input.events.length ? (runs.get(run.id) ?? run) : run;
      }),

    sleepRun: (input) =>
      session.write('let a run sleep', () => {
        const now = session.now();
        if (!runs.sleep(input.runId, input.ownerId, now)) return false;
        jobs.closeQueued(input.runId, 'wake_run', 'superseded by a later wake-up');
        jobs.insertAt('wake_run', input.runId, { wakeAt: input.wakeAt }, now, input.wakeAt);
        return true;
      }),

    requestGateDecision: (input) =>
      session.write('queue the answer to a gate', (): GateDecisionAnswer => {
        const run = runs.get(input.runId);
        if (!run || run.status !== 'paused') return { queued: false, run };
        const ending = endingOf(run.id);
        if (ending) return { queued: false, run, ending };
        const open = jobs.openOfKinds(run.id, gateDecisionJobKinds);
        if (open) return { queued: false, run, open: open.kind as GateDecisionJobKind };
        jobs.insert(input.kind, run.id, input.payload, session.now());
        return { queued: true, run };
      }),

    requestRunContinuation: (input) =>
      session.write('queue a job that carries a run on', (): RunContinuationAnswer => {
        const run = runs.get(input.runId);
        if (!run || !input.fromStatuses.includes(run.status)) return { queued: false, run };
        const ending = endingOf(run.id);
        if (ending) return { queued: false, run, ending };
        return { queued: true, run, job: jobs.insert(input.kind, run.id, input.payload, session.now()) };
      }),
  };
}
