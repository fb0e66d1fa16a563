import { openStore, sqliteStoreConfig } from '../../src/store/open-store.js';
import { makeTempHome } from '../helpers/temp-home.js';
import { holdWriteLock } from '../helpers/write-lock.js';
import type { StoreBackend } from './contract/backend.js';

/** The SQLite file under a fresh temp CAIRN_HOME, as every Cairn process opens it. */
export const sqliteBackend: StoreBackend = {
  async setUp() {
    const home = await makeTempHome();
    const config = sqliteStoreConfig(home.paths.database);
    // Create and migrate the file before any test connection or child process opens it.
    home.openStore();
    return {
      config,
      open(opts = {}) {
        const store = openStore(config, { pollMs: 50, ...opts });
        home.defer(() => store.close());
        return store;
      },
      holdWriteLock: () => holdWriteLock(home),
      defer: (fn) => home.defer(fn),
      tearDown: () => home.close(),
    };
  },
};
