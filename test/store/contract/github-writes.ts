import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** Every Store: the GitHub writes a run's github nodes reserve and record, counted against a cap (store/github-writes.ts). */
export function describeGitHubWriteContract(backend: StoreBackend): void {
  describe('GitHub writes', () => {
    const h = useHarness(backend);

    it('reserves new keys up to the cap of their kind, answers a reserved key again as it is, and refuses the rest', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const reserve = (key: string, kind: 'comment' | 'label' = 'comment', cap = 2) => store.reserveGitHubWrite({ runId: run.id, key, kind, cap });
      expect(await reserve('comment:a')).toMatchObject({ reserved: true, existing: false, write: { key: 'comment:a', kind: 'comment', githubId: null } });
      expect(await reserve('comment:b')).toMatchObject({ reserved: true, existing: false });
      // The cap counts per kind: a label is not a comment.
      expect(await reserve('label:c', 'label', 1)).toMatchObject({ reserved: true, existing: false });
      expect(await reserve('comment:c')).toEqual({ reserved: false, why: 'cap', used: 2 });
      // A retried node is the same write: answered, never counted twice, with what was recorded.
      await store.recordGitHubWrite({ runId: run.id, key: 'comment:a', githubId: '9001', url: 'https://github.com/o/r/issues/1#issuecomment-9001' });
      expect(await reserve('comment:a')).toMatchObject({ reserved: true, existing: true, write: { githubId: '9001', url: 'https://github.com/o/r/issues/1#issuecomment-9001' } });
      expect((await store.listGitHubWrites(run.id)).map((w) => [w.key, w.githubId])).toEqual([['comment:a', '9001'], ['comment:b', null], ['label:c', null]]);
    });

    it('never lets two reservations at once both take the last place, and keeps nothing for a run that is not there or is deleted', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const answers = await Promise.all(['x', 'y', 'z'].map((key) => h().open().reserveGitHubWrite({ runId: run.id, key, kind: 'pull_request', cap: 1 })));
      expect(answers.filter((a) => a.reserved)).toHaveLength(1);
      expect(await store.reserveGitHubWrite({ runId: 'no-such-run', key: 'k', kind: 'comment', cap: 1 })).toEqual({ reserved: false, why: 'run_not_found' });
      expect(await store.deleteRun(run.id, ['pending'])).toBe(true);
      expect(await store.listGitHubWrites(run.id)).toEqual([]);
    });
  });
}
