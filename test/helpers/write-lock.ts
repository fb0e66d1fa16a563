import { fileURLToPath } from 'node:url';
import { forkScript } from '../store/fork-script.js';
import type { TempHome } from './temp-home.js';

const lockHolder = fileURLToPath(new URL('../store/sqlite-lock-holder.ts', import.meta.url));

/**
 * Has another process take the home database's write lock (BEGIN IMMEDIATE), as a long write
 * transaction in another program would; resolves once it holds it. `release` commits and waits
 * for the process to confirm. The process is killed when the home closes.
 */
export async function holdWriteLock(home: TempHome): Promise<{ release(): Promise<void> }> {
  const holder = forkScript(lockHolder, [home.paths.database]);
  home.defer(() => holder.kill());
  await holder.next('locked');
  return {
    async release() {
      const released = holder.next('released');
      holder.send({ type: 'release' });
      await released;
    },
  };
}
