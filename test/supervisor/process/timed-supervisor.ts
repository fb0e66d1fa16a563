import { Writable } from 'node:stream';
import pino from 'pino';
import { loadSettings } from '../../../src/shared/config.js';
import type { Logger } from '../../../src/shared/log.js';
import { sqliteStoreConfig, type Store } from '../../../src/store/open-store.js';
import { globalSlots } from '../../../src/supervisor/run/engine-slots.js';
import { Supervisor, type SupervisorDeps } from '../../../src/supervisor/process/supervisor.js';
import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';
import { ChildRunSignals } from '../../../src/supervisor/children/child-signals.js';
import { createNodeKinds } from '../../../src/supervisor/nodes/node-kinds.js';
import { RUN_LEASE_MS } from '../../../src/supervisor/process/run-registry.js';
import { createSchedulerFactory } from '../../../src/supervisor/run/scheduler-factory.js';
import { createWorkerPool } from '../../../src/worker/pool/pool.js';
import { builtTaskFile } from '../../helpers/built-files.js';
import type { TempHome } from '../../helpers/temp-home.js';

/** A log line as pino writes it. */
export type LogLine = { level: number; msg: string } & Record<string, unknown>;

/** A logger that keeps every line (debug and up) for the test to read. */
export function capturingLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
}

/**
 * A real supervisor (real store, real Piscina pool over the built task file) whose timing a test
 * chooses: the same wiring as `createSupervisorRuntime`, plus `timing`, a logger and the clock its
 * store goes by.
 */
export async function startTimedSupervisor(
  home: TempHome,
  opts: { id: string; timing?: SupervisorDeps['timing']; log?: Logger; clock?: () => number; store?: Store },
): Promise<{ supervisor: Supervisor; store: Store; stop(): Promise<void> }> {
  const settings = { ...loadSettings({ CAIRN_HOME: home.home }), maxConcurrency: 4, perRunConcurrency: 4 };
  const store = opts.store ?? home.openStore(opts.clock ? { clock: opts.clock } : {});
  const log = opts.log ?? pino({ level: 'silent' });
  const pool = createWorkerPool({ store, maxThreads: 1, concurrentTasksPerWorker: 4, filename: builtTaskFile, log });
  const limiter = globalSlots(settings.maxConcurrency);
  const catalog = WorkflowCatalog.forHome(settings.home, { threadFile: null });
  const childSignals = new ChildRunSignals();
  const schedulers = createSchedulerFactory({
    store, storeConfig: sqliteStoreConfig(home.paths.database), pool, limiter, settings, log, lockLeaseMs: RUN_LEASE_MS,
    kinds: createNodeKinds({ children: { lookup: (name, query) => catalog.getAsync(name, query), signals: childSignals } }),
  });
  const supervisor = new Supervisor({
    store, schedulers, childSignals, limiter, perRunLimit: settings.perRunConcurrency, log, paths: settings.paths, id: opts.id,
    ...(opts.timing ? { timing: opts.timing } : {}),
  });
  await supervisor.start();
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= supervisor.shutdown({ drain: false }).then(() => pool.close()));
  home.defer(stop);
  return { supervisor, store, stop };
}
