import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { forkScript } from '../fork-script.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

const runWriterScript = fileURLToPath(new URL('./run-writer-process.ts', import.meta.url));

/** What every connection promises regardless of aggregate: shared rows and change notification. */
export function describeConnectionContract(backend: StoreBackend): void {
  describe('connections', () => {
    const h = useHarness(backend);

    it('lets several connections open one database, all seeing the same rows', async () => {
      const stores = Array.from({ length: 4 }, () => h().open());
      await Promise.all(stores.map((s) => s.ping()));
      const run = await stores[3]!.createRun(newRun());
      expect((await stores[0]!.getRun(run.id))?.id).toBe(run.id);
    });

    it('tells a listener when another connection commits', async () => {
      const watcher = h().open();
      const writer = h().open();
      const run = await writer.createRun(newRun({ conversationId: 'conv-1' }));
      let calls = 0;
      const stop = watcher.onChange(() => calls++);
      await writer.appendEvents([newEvent(run, 'x')]);
      await waitFor(() => calls > 0, { what: 'a change notification' });
      stop();
    });

    it("wakes a listener once another process's commit is visible to it, not only before", async () => {
      // No fallback poll in this hour: every wake-up must come from the change notification itself.
      const watcher = h().open({ pollMs: 3_600_000 });
      const writer = forkScript(runWriterScript, [JSON.stringify(h().config)]);
      h().defer(() => writer.kill());
      await writer.next('ready');
      // What a woken listener sees, read the moment it is called (as the supervisor's claim loop does).
      let visible = 0;
      const stop = watcher.onChange(() => {
        void watcher.countRuns('pending').then((n) => (visible = Math.max(visible, n)));
      });
      for (let created = 1; created <= 20; created++) {
        writer.send({ type: 'create' });
        await writer.next('created');
        await waitFor(() => visible >= created, { what: `a wake-up that sees run ${created}`, timeoutMs: 10_000 });
      }
      stop();
    });
  });
}
