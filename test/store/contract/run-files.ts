import { describe, expect, it } from 'vitest';
import { contentHash } from '../../../src/shared/content-hash.js';
import type { CapturedFile } from '../../../src/store/store.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

const file = (kind: CapturedFile['kind'], name: string, content: string | null): CapturedFile => ({
  kind, name, path: content === null ? null : `/project/${kind}s/${name}`, hash: content === null ? null : contentHash(content), content,
});

/** RunFileStore: a run's copy of its files, each distinct content stored once. */
export function describeRunFileContract(backend: StoreBackend): void {
  describe('the files a run captured', () => {
    const h = useHarness(backend);

    it('has no capture until one is stored, then reads it back, missing files included', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      expect(await store.getRunFiles(run.id)).toBeUndefined();
      const files = [file('command', 'review', 'Review $ARGUMENTS\n'), file('script', 'tool', 'print("héllo\\u0000")'), file('command', 'gone', null)];
      expect(await store.captureRunFiles({ runId: run.id, workflowHash: 'sha256:w1', files })).toBe(true);
      const read = await h().open().getRunFiles(run.id);
      expect(read?.workflowHash).toBe('sha256:w1');
      expect(read?.files).toEqual(expect.arrayContaining(files));
      expect(read?.files).toHaveLength(3);
    });

    it('replaces the capture and appends its events in one write; refuses a run that is gone', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await store.captureRunFiles({ runId: run.id, workflowHash: 'sha256:w1', files: [file('command', 'a', 'one'), file('script', 'b', 'two')] });
      await store.captureRunFiles({
        runId: run.id, workflowHash: 'sha256:w2', files: [file('command', 'a', 'three')], events: [newEvent(run, 'workflow_reloaded')],
      });
      expect(await store.getRunFiles(run.id)).toEqual({ workflowHash: 'sha256:w2', files: [file('command', 'a', 'three')] });
      expect((await store.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['workflow_reloaded']);
      expect(await store.captureRunFiles({ runId: 'no-such-run', workflowHash: 'sha256:w', files: [] })).toBe(false);
    });

    it('shares a content between runs, and keeps it until the last run naming it is deleted', async () => {
      const store = h().open();
      const shared = file('command', 'review', 'the same text');
      const [first, second] = [await store.createRun(newRun()), await store.createRun(newRun())];
      for (const run of [first, second]) await store.captureRunFiles({ runId: run.id, workflowHash: 'sha256:w', files: [shared] });
      await store.deleteRun(first.id, ['pending']);
      expect(await store.getRunFiles(first.id)).toBeUndefined();
      expect((await store.getRunFiles(second.id))?.files).toEqual([shared]);
      // Once the last holder is gone (its content forgotten), a new capture of the same text stores it again.
      await store.deleteRun(second.id, ['pending']);
      const third = await store.createRun(newRun());
      await store.captureRunFiles({ runId: third.id, workflowHash: 'sha256:w', files: [shared] });
      expect((await store.getRunFiles(third.id))?.files).toEqual([shared]);
    });
  });
}
