import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewHook } from '../../../src/store/store.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

function newHook(overrides: Partial<NewHook> = {}): NewHook {
  return {
    id: randomUUID(), name: `hook-${randomUUID().slice(0, 8)}`, workflowName: 'demo', codebaseId: null, signature: 'github',
    inputs: { pr: '$.pull_request.number' }, sealedSecret: 'sealed', ...overrides,
  };
}

/** HookStore: webhooks, and each delivery id admitted once with the run it starts. */
export function describeHookContract(backend: StoreBackend): void {
  describe('webhooks', () => {
    const h = useHarness(backend);

    it('creates, finds, lists and deletes hooks; names are unique', async () => {
      const store = h().open();
      const made = await store.createHook(newHook({ name: 'b-hook' }));
      await store.createHook(newHook({ name: 'a-hook', signature: 'generic' }));
      expect(made).toMatchObject({ name: 'b-hook', signature: 'github', inputs: { pr: '$.pull_request.number' }, sealed_secret: 'sealed', codebase_id: null });
      await expect(store.createHook(newHook({ name: 'b-hook' }))).rejects.toMatchObject({ code: 'HOOK_EXISTS' });
      expect((await h().open().getHook('b-hook'))?.id).toBe(made.id);
      expect((await store.listHooks()).map((x) => x.name)).toEqual(['a-hook', 'b-hook']);
      expect(await store.deleteHook('b-hook')).toBe(true);
      expect(await store.deleteHook('b-hook')).toBe(false);
      expect(await store.getHook('b-hook')).toBeUndefined();
    });

    it('admits a delivery once, with its run; the same id again answers the first delivery and writes nothing', async () => {
      const store = h().open();
      const hook = await store.createHook(newHook());
      const plain = newRun();
      const run = { ...plain, events: [{ run_id: plain.id, conversation_id: plain.conversationId, event_type: 'workflow_queued', step_name: null, data: { workflowName: 'demo' } }] };
      const first = await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'd-1', run });
      expect(first).toMatchObject({ admitted: true, delivery: { hook_id: hook.id, delivery_id: 'd-1', run_id: run.id }, run: { id: run.id, status: 'pending' } });
      expect((await store.listRunJobs(run.id)).map((j) => j.kind)).toEqual(['start_run']);
      // Its events are written with it, as a run request's are: the live stream hears of the run when it is queued.
      expect((await store.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['workflow_queued']);
      const other = newRun();
      expect(await h().open().admitHookDelivery({ hookId: hook.id, deliveryId: 'd-1', run: other })).toMatchObject({ admitted: false, delivery: { run_id: run.id } });
      expect(await store.getRun(other.id)).toBeUndefined();
      expect(await store.getHookDelivery(hook.id, 'd-1')).toMatchObject({ run_id: run.id });
      expect(await store.getHookDelivery(hook.id, 'd-2')).toBeUndefined();
    });

    it('lists a hook’s deliveries newest first, a page at a time, with how many it has in all', async () => {
      let now = Date.parse('2026-06-01T12:00:00.000Z');
      const store = h().open({ clock: () => now });
      const hook = await store.createHook(newHook());
      const other = await store.createHook(newHook());
      // d-b and d-c are received at the same moment: the later delivery id comes first.
      for (const [deliveryId, at] of [['d-a', 0], ['d-c', 1000], ['d-b', 1000], ['d-d', 2000]] as const) {
        now = Date.parse('2026-06-01T12:00:00.000Z') + at;
        await store.admitHookDelivery({ hookId: hook.id, deliveryId, run: newRun() });
      }
      await store.admitHookDelivery({ hookId: other.id, deliveryId: 'elsewhere', run: newRun() });
      const all = await h().open().listHookDeliveries(hook.id, { limit: 10, offset: 0 });
      expect(all.total).toBe(4);
      expect(all.deliveries.map((d) => d.delivery_id)).toEqual(['d-d', 'd-c', 'd-b', 'd-a']);
      expect(all.deliveries[0]).toEqual({
        hook_id: hook.id, delivery_id: 'd-d', run_id: expect.any(String), ignored: null, received_at: '2026-06-01T12:00:02.000Z', status_comment_id: null, status_shown: null,
      });
      const second = await store.listHookDeliveries(hook.id, { limit: 2, offset: 2 });
      expect(second).toEqual({ deliveries: all.deliveries.slice(2), total: 4 });
      expect(await store.listHookDeliveries(hook.id, { limit: 2, offset: 4 })).toEqual({ deliveries: [], total: 4 });
      expect(await store.listHookDeliveries('no-such-hook', { limit: 10, offset: 0 })).toEqual({ deliveries: [], total: 0 });
    });

    it('forgets deliveries received before a time, oldest first and at most a batch at a time; their runs stay, and a forgotten id is new again', async () => {
      let now = Date.parse('2026-06-01T12:00:00.000Z');
      const store = h().open({ clock: () => now });
      const hook = await store.createHook(newHook());
      const other = await store.createHook(newHook());
      const runs = new Map<string, string>();
      // Admitted out of order of their times: the prune goes by received_at, not by insertion.
      for (const [hookId, deliveryId, minutes] of [
        [hook.id, 'old-3', 3], [hook.id, 'old-1', 1], [other.id, 'old-2', 2], [hook.id, 'cut', 10], [hook.id, 'new', 11],
      ] as const) {
        now = Date.parse('2026-06-01T12:00:00.000Z') + minutes * 60_000;
        const run = newRun();
        runs.set(deliveryId, run.id);
        await store.admitHookDelivery({ hookId, deliveryId, run });
      }
      const cutoff = '2026-06-01T12:10:00.000Z'; // `cut` was received at exactly this moment: kept
      expect(await store.pruneHookDeliveries(cutoff, 2)).toBe(2);
      expect(await store.getHookDelivery(hook.id, 'old-1')).toBeUndefined();
      expect(await store.getHookDelivery(other.id, 'old-2')).toBeUndefined();
      expect(await store.getHookDelivery(hook.id, 'old-3')).toBeDefined();
      expect(await h().open().pruneHookDeliveries(cutoff, 2)).toBe(1);
      expect(await store.pruneHookDeliveries(cutoff, 2)).toBe(0);
      expect((await store.listHookDeliveries(hook.id, { limit: 10, offset: 0 })).deliveries.map((d) => d.delivery_id)).toEqual(['new', 'cut']);
      for (const runId of runs.values()) expect(await store.getRun(runId)).toBeDefined();
      // A redelivery of a forgotten id starts a run of its own.
      const again = newRun();
      expect(await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'old-1', run: again })).toMatchObject({ admitted: true, delivery: { run_id: again.id } });
    });

    it('admits one run when several connections race on the same delivery id', async () => {
      const hook = await h().open().createHook(newHook());
      const stores = [h().open(), h().open(), h().open(), h().open()];
      const answers = await Promise.all(stores.map((s) => s.admitHookDelivery({ hookId: hook.id, deliveryId: 'raced', run: newRun({ workflowName: 'raced-hook' }) })));
      expect(answers.filter((a) => a.admitted)).toHaveLength(1);
      const runIds = new Set(answers.map((a) => ('delivery' in a ? a.delivery.run_id : undefined)));
      expect(runIds.size).toBe(1);
      expect((await stores[0]!.listRuns({ workflowName: 'raced-hook', limit: 10 })).map((r) => r.id)).toEqual([...runIds]);
    });

    it('a deleted hook admits nothing and its delivery record goes with it; its runs stay', async () => {
      const store = h().open();
      const hook = await store.createHook(newHook({ name: 'gone' }));
      const run = newRun();
      await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'd-1', run });
      await store.deleteHook('gone');
      expect(await store.getHookDelivery(hook.id, 'd-1')).toBeUndefined();
      expect(await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'd-2', run: newRun() })).toEqual({ admitted: false, why: 'not_found' });
      expect(await store.getRun(run.id)).toBeDefined();
    });

    it('keeps a GitHub hook’s settings and sealed token, and replaces the token; a plain hook has neither', async () => {
      const store = h().open();
      const github = { api_url: 'https://api.github.com', workflows: ['other'], labels: ['cairn'], on_issue_opened: true, deny_reply: false, dashboard_url: null };
      const made = await store.createHook(newHook({ name: 'gh', github, sealedGithubToken: 'sealed-token' }));
      expect(made).toMatchObject({ github, sealed_github_token: 'sealed-token' });
      expect(await h().open().getHook('gh')).toMatchObject({ github, sealed_github_token: 'sealed-token' });
      const plain = await store.createHook(newHook({ name: 'plain' }));
      expect(plain).toMatchObject({ github: null, sealed_github_token: null });
      expect(await h().open().replaceHookGithubToken(made.id, 'sealed-token-2')).toMatchObject({ name: 'gh', github, sealed_github_token: 'sealed-token-2' });
      expect((await store.getHook('gh'))!.sealed_github_token).toBe('sealed-token-2');
      expect(await store.replaceHookGithubToken(plain.id, 'x')).toBeUndefined();
      expect((await store.getHook('plain'))!.sealed_github_token).toBeNull();
      expect(await store.replaceHookGithubToken('no-such-hook', 'x')).toBeUndefined();
    });

    it("claims a GitHub run's status comment for one maker at a time, until it is made or the claim goes stale", async () => {
      const store = h().open();
      const hook = await store.createHook(newHook());
      await store.admitHookDelivery({ hookId: hook.id, deliveryId: 's-1', run: newRun() });
      const claim = (claimant: string, staleBefore = '2000-01-01T00:00:00.000Z') =>
        h().open().claimStatusComment({ hookId: hook.id, deliveryId: 's-1', claimant, staleBefore });
      expect(await claim('api-a')).toEqual({ claimed: true });
      expect(await claim('api-b')).toEqual({ claimed: false, commentId: null, claimedBy: 'api-a' });
      expect(await claim('api-a')).toEqual({ claimed: true });
      // Stale: taken before the given instant (a holder that died before making the comment).
      expect(await claim('api-b', '2999-01-01T00:00:00.000Z')).toEqual({ claimed: true });
      const fresh = await store.getHookDelivery(hook.id, 's-1');
      expect(fresh).toMatchObject({ status_comment_id: null, status_shown: null });
      await store.recordStatusComment({ hookId: hook.id, deliveryId: 's-1', commentId: 9_007_199_254, status: 'running' });
      expect(await h().open().getHookDelivery(hook.id, 's-1')).toMatchObject({ status_comment_id: 9_007_199_254, status_shown: 'running' });
      // Made: nobody claims it any more, stale or not; they edit it.
      expect(await claim('api-c', '2999-01-01T00:00:00.000Z')).toEqual({ claimed: false, commentId: 9_007_199_254, claimedBy: 'api-b' });
      await store.recordStatusComment({ hookId: hook.id, deliveryId: 's-1', commentId: 9_007_199_254, status: null });
      expect((await store.listHookDeliveries(hook.id, { limit: 1, offset: 0 })).deliveries[0]).toMatchObject({ status_comment_id: 9_007_199_254, status_shown: null });
      // A delivery that is gone (forgotten by the retention): not claimed, and nobody holds it.
      expect(await store.claimStatusComment({ hookId: hook.id, deliveryId: 'gone', claimant: 'api-a', staleBefore: '2000-01-01T00:00:00.000Z' })).toEqual({
        claimed: false, commentId: null, claimedBy: null,
      });
    });

    it('records an ignored delivery once, with its reason and no run; the same id is not admitted or recorded again', async () => {
      const store = h().open();
      const hook = await store.createHook(newHook());
      const first = await store.ignoreHookDelivery({ hookId: hook.id, deliveryId: 'i-1', reason: 'no /cairn command' });
      expect(first).toMatchObject({ recorded: true, delivery: { hook_id: hook.id, delivery_id: 'i-1', run_id: null, ignored: 'no /cairn command' } });
      expect(await h().open().ignoreHookDelivery({ hookId: hook.id, deliveryId: 'i-1', reason: 'again' })).toMatchObject({
        recorded: false, delivery: { run_id: null, ignored: 'no /cairn command' },
      });
      const run = newRun();
      expect(await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'i-1', run })).toMatchObject({ admitted: false, delivery: { run_id: null } });
      expect(await store.getRun(run.id)).toBeUndefined();
      await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'a-1', run: newRun() });
      expect(await store.ignoreHookDelivery({ hookId: hook.id, deliveryId: 'a-1', reason: 'late' })).toMatchObject({ recorded: false, delivery: { ignored: null } });
      expect((await store.listHookDeliveries(hook.id, { limit: 10, offset: 0 })).total).toBe(2);
      await store.deleteHook(hook.name);
      expect(await store.ignoreHookDelivery({ hookId: hook.id, deliveryId: 'i-2', reason: 'x' })).toEqual({ recorded: false, why: 'not_found' });
    });
  });
}
