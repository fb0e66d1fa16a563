import { loadSettings } from '../../shared/config.js';
import { positiveIntFromEnv } from '../../shared/env-settings.js';
import type { ChildReadyMessage } from '../../shared/process-messages.js';
import { createLogger } from '../../shared/log.js';
import { openStore, storeConfigOf } from '../../store/open-store.js';
import { createSupervisorRuntime, renewDeadlineFor } from './runtime.js';
import { onShutdownRequest } from './shutdown.js';
import { checkWorkspacesVisible } from './workspace-check.js';
import { newSupervisorId } from './supervisor.js';

/** The supervisor process: claims jobs and drives runs. Started by `cairn serve`. */
async function main(): Promise<void> {
  const settings = loadSettings();
  settings.installKey(); // a bad TOKEN_ENCRYPTION_KEY or key file stops the process here
  const log = createLogger({ name: 'supervisor' });
  const id = newSupervisorId();
  // On a shared database every run event this process (and each of its worker threads) writes
  // is fenced by its ownership of the run: one taken over while this process was paused past its
  // lease takes nothing more from it (store/rules/write-fence.ts).
  const shared = storeConfigOf(settings);
  const storeConfig = shared.backend === 'postgres' ? { ...shared, writer: id } : shared;
  const runLeaseMs = positiveIntFromEnv('CAIRN_RUN_LEASE_MS', process.env.CAIRN_RUN_LEASE_MS);
  // A lease too short to fence itself in time is refused before anything is opened or started.
  renewDeadlineFor(storeConfig, runLeaseMs);
  const store = openStore(storeConfig);
  const threads = positiveIntFromEnv('CAIRN_WORKER_THREADS', process.env.CAIRN_WORKER_THREADS);
  // On a shared database the runs may come from other hosts: their checkouts must be visible here.
  if (storeConfig.backend === 'postgres') await checkWorkspacesVisible(store, log);
  const { supervisor, pool, clusterSlots } = createSupervisorRuntime({
    store, storeConfig, settings, log, id, ...(threads ? { threads } : {}), ...(runLeaseMs ? { runLeaseMs } : {}),
  });
  await supervisor.start();
  process.send?.({ type: 'ready' } satisfies ChildReadyMessage);

  let closing: Promise<void> | undefined;
  onShutdownRequest(async ({ drain }) => {
    if (closing) return supervisor.shutdown({ drain }); // a second request interrupts a drain
    closing = close(drain);
  });
  async function close(drain: boolean): Promise<void> {
    const errors: unknown[] = [];
    // The pool closes inside the shutdown, before the final `stopped` heartbeat: other
    // supervisors take `stopped` to mean that nothing of ours is left running.
    const closeWorkers = async () => {
      await pool.close();
      await clusterSlots?.close();
    };
    for (const step of [() => supervisor.shutdown({ drain, closeWorkers }), () => store.close()]) {
      await step().catch((err: unknown) => errors.push(err));
    }
    if (errors.length) log.error({ err: new AggregateError(errors) }, 'supervisor.shutdown_failed');
    process.exit(errors.length ? 1 : 0);
  }
}

main().catch((err: unknown) => {
  console.error('supervisor failed to start:', err);
  process.exit(1);
});
