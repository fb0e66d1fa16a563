import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** Takes a new run through running to `status` (released), as a supervisor would. */
async function runIn(store: Store, status: 'running' | 'paused' | 'failed'): Promise<Run> {
  const run = await store.createRun(newRun());
  await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
  if (status === 'running') return (await store.getRun(run.id))!;
  return store.transitionRun({ runId: run.id, ownerId: 'sup-a', status, release: true, events: [] });
}

/** A user's requests of a run (gate answers, resumes), checked and queued in one transaction. */
export function describeRunRequestContract(backend: StoreBackend): void {
  describe('run requests', () => {
    const h = useHarness(backend);

    it('queues one answer to a paused run’s gate and refuses a second, naming the answer already open', async () => {
      const store = h().open();
      const run = await runIn(store, 'paused');
      const first = await store.requestGateDecision({ runId: run.id, kind: 'approve_run', payload: { comment: 'ok' } });
      expect(first).toMatchObject({ queued: true, run: { id: run.id, status: 'paused' } });
      const second = await store.requestGateDecision({ runId: run.id, kind: 'reject_run', payload: {} });
      expect(second).toMatchObject({ queued: false, run: { id: run.id }, open: 'approve_run' });
      const answers = (await store.listRunJobs(run.id)).filter((job) => job.kind === 'approve_run' || job.kind === 'reject_run');
      expect(answers.map((job) => [job.kind, job.payload])).toEqual([['approve_run', { comment: 'ok' }]]);
    });

    it('queues exactly one of two answers sent together from two connections', async () => {
      const run = await runIn(h().open(), 'paused');
      const [a, b] = [h().open(), h().open()];
      const answers = await Promise.all([
        a.requestGateDecision({ runId: run.id, kind: 'approve_run', payload: {} }),
        b.requestGateDecision({ runId: run.id, kind: 'reject_run', payload: {} }),
      ]);
      expect(answers.filter((answer) => answer.queued)).toHaveLength(1);
      expect((await a.listRunJobs(run.id)).filter((job) => job.kind === 'approve_run' || job.kind === 'reject_run')).toHaveLength(1);
    });

    it('refuses a gate answer for a run that is not paused, is unknown, or that an open cancel will end', async () => {
      const store = h().open();
      const running = await runIn(store, 'running');
      expect(await store.requestGateDecision({ runId: running.id, kind: 'approve_run', payload: {} })).toMatchObject({ queued: false, run: { status: 'running' } });
      expect(await store.requestGateDecision({ runId: 'no-such-run', kind: 'approve_run', payload: {} })).toEqual({ queued: false, run: undefined });
      const paused = await runIn(store, 'paused');
      const cancel = await store.enqueueJob('cancel_run', paused.id);
      expect(await store.requestGateDecision({ runId: paused.id, kind: 'approve_run', payload: {} })).toMatchObject({
        queued: false, ending: { kind: 'cancel_run', requestedAt: cancel.created_at },
      });
    });

    it('queues a continuation of a run in one of the named statuses, and answers the job it queued', async () => {
      const store = h().open();
      const failed = await runIn(store, 'failed');
      const answer = await store.requestRunContinuation({ runId: failed.id, kind: 'resume_run', payload: { by: 'user' }, fromStatuses: ['failed', 'paused'] });
      expect(answer).toMatchObject({ queued: true, run: { id: failed.id, status: 'failed' }, job: { kind: 'resume_run', run_id: failed.id, status: 'queued', payload: { by: 'user' } } });
      if (!answer.queued) throw new Error('expected the continuation to be queued');
      expect(await store.getJob(answer.job.id)).toEqual(answer.job);
    });

    it('refuses a continuation of a run in another status, an unknown run, and a run an open abandon will end', async () => {
      const store = h().open();
      const running = await runIn(store, 'running');
      const ask = (runId: string) => store.requestRunContinuation({ runId, kind: 'resume_run', payload: {}, fromStatuses: ['failed', 'paused'] });
      expect(await ask(running.id)).toMatchObject({ queued: false, run: { status: 'running' } });
      expect(await ask('no-such-run')).toEqual({ queued: false, run: undefined });
      const failed = await runIn(store, 'failed');
      const abandon = await store.enqueueJob('abandon_run', failed.id);
      expect(await ask(failed.id)).toMatchObject({ queued: false, ending: { kind: 'abandon_run', requestedAt: abandon.created_at } });
      expect((await store.listRunJobs(failed.id)).map((job) => job.kind)).not.toContain('resume_run');
    });
  });
}
