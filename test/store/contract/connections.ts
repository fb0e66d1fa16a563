import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

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
  });
}
