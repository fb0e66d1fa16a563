import { afterEach, beforeEach, describe, it } from 'vitest';
import { openStore, sqliteStoreConfig } from '../../src/store/open-store.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { newEvent, newRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
  home.openStore(); // created and migrated before the test's connection opens it
});
afterEach(async () => {
  await home.close();
});

/**
 * The SQLite change watch on the listener's own connection: `data_version` never shows a
 * connection its own commits, so only the write event itself can wake listeners for them
 * (store/sqlite/change-watch.ts). The contract suite covers other connections.
 */
describe('the SQLite change watch', () => {
  it("wakes a listener for its own connection's commits, each time, with no fallback poll to lean on", async () => {
    const store = openStore(sqliteStoreConfig(home.paths.database), { pollMs: 3_600_000 });
    home.defer(() => store.close());
    const run = await store.createRun(newRun({ conversationId: 'conv-own' }));
    let calls = 0;
    const stop = store.onChange(() => calls++);
    for (let i = 1; i <= 3; i++) {
      const before = calls;
      await store.appendEvents([newEvent(run, `own-${i}`)]);
      await waitFor(() => calls > before, { what: `a wake-up for own commit ${i}` });
    }
    stop();
  });
});
