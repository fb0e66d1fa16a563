import { fileURLToPath } from 'node:url';
import { openStore, sqliteStoreConfig } from '../../src/store/open-store.js';
import { makeTempHome } from '../helpers/temp-home.js';
import type { StoreBackend } from './contract/backend.js';
import { forkScript } from './fork-script.js';

const lockHolderScript = fileURLToPath(new URL('./sqlite-lock-holder.ts', import.meta.url));

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
      async holdWriteLock() {
        const holder = forkScript(lockHolderScript, [home.paths.database]);
        home.defer(() => holder.kill());
        await holder.next('locked');
        return {
          async release() {
            const released = holder.next('released');
            holder.send({ type: 'release' });
            await released;
          },
        };
      },
      defer: (fn) => home.defer(fn),
      tearDown: () => home.close(),
    };
  },
};
