import type { Settings } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { MAX_CONCURRENT_CHAT_TURNS } from '../../store/schemas/conversation.js';
import { openClusterSlots, type ClusterSlots, type Store, type StoreConfig } from '../../store/open-store.js';
import { clusterGated } from './cluster-gated-runner.js';
import { clusterHeld } from './cluster-held-limiter.js';
import { createWorkerPool, type WorkerPool } from '../../worker/pool/pool.js';
import { attemptCloser } from '../../worker/attempt-closer.js';
import { createSchedulerFactory, KILL_GRACE_MS } from '../run/scheduler-factory.js';
import { createNodeKinds } from '../nodes/node-kinds.js';
import { credentialSourceFor } from '../../credentials/credential-source.js';
import { createChatAssistant } from './chat-assistant.js';
import { ProviderRates } from '../run/provider-rates.js';
import { globalSlots, providerSlots as providerSlotsOf } from '../run/engine-slots.js';
import { RUN_LEASE_MS } from './run-registry.js';
import { HEARTBEAT_MS, Supervisor } from './supervisor.js';
import { HEARTBEAT_STALE_MS } from './liveness.js';
import { renewDeadlineMs } from './renew-deadline.js';
import { afterHeldEnds } from './after-held-ends.js';
import { ChildRunSignals } from '../children/child-signals.js';
import { clockNow } from '../../shared/clock.js';
import { DeclaredTriggers } from './declared-triggers.js';
import { ScheduleLoop } from './schedule-loop.js';
import { DeliveryRetention } from './delivery-retention.js';

export interface SupervisorRuntime {
  supervisor: Supervisor;
  pool: WorkerPool;
  /** The global and provider places shared across supervisors (PostgreSQL), closed after the pool. */
  clusterSlots: ClusterSlots | undefined;
}

/**
 * The renew deadline of a supervisor's self-fence (renew-deadline.ts), or undefined when it has
 * none. On a shared database a supervisor on another host takes over the runs of one that stops
 * renewing (a network split): that one must have ended their nodes by then, so it fences itself
 * first. On SQLite (one host) nobody else can: a renewal stuck behind a busy lock must not end
 * the nodes, and a dead supervisor's nodes are killed by pid at the take-over. Throws
 * CONFIG_INVALID for a lease too short to fence in time.
 */
export function renewDeadlineFor(storeConfig: StoreConfig, runLeaseMs: number = RUN_LEASE_MS): number | undefined {
  if (storeConfig.backend !== 'postgres') return undefined;
  return renewDeadlineMs({ leaseMs: runLeaseMs, heartbeatStaleMs: HEARTBEAT_STALE_MS, killGraceMs: KILL_GRACE_MS, heartbeatMs: HEARTBEAT_MS });
}

/**
 * Wires a supervisor to its worker pool and limits. An exec attempt mostly waits on its child
 * (forked by the thread's small spawn helper), so by default one thread runs all of them:
 * measured on 2 cores, 1000 × `true` at a limit of 8 ran faster with one thread than with two,
 * and each thread costs ~25 MB. Agent attempts (provider calls) will want more threads.
 */
export function createSupervisorRuntime(opts: {
  store: Store;
  /** Where worker threads open their own Store. */
  storeConfig: StoreConfig;
  settings: Settings;
  log: Logger;
  threads?: number;
  /** The Piscina thread entry; defaults to the built `worker/thread/task-entry.cjs`. */
  taskFile?: string;
  id?: string;
  /** The run lease (and so the worktree lock lease); RUN_LEASE_MS unless a test shortens it. */
  runLeaseMs?: number;
}): SupervisorRuntime {
  const { settings, log } = opts;
  const limit = settings.maxConcurrency;
  const runLeaseMs = opts.runLeaseMs ?? RUN_LEASE_MS;
  const renewDeadline = renewDeadlineFor(opts.storeConfig, runLeaseMs);
  const threads = opts.threads ?? 1;
  // The pool writes on the store itself: it is what the engine's writes wait for (after-held-ends.ts).
  attemptCloser(opts.store, log);
  const pool = createWorkerPool({
    store: opts.store,
    maxThreads: threads,
    // Room for every attempt the limiter lets through plus every chat turn that may run at once
    // (their calls to the default assistant), so neither waits behind the other in a thread, and
    // one more for a flush of the ends the thread holds.
    concurrentTasksPerWorker: Math.ceil((limit + MAX_CONCURRENT_CHAT_TURNS) / threads) + 1,
    // An attempt's end shares its commit with the next node's start (worker/thread/held-ends.ts).
    // That rests on the SQLite store committing one tick's appends together, in call order; the
    // PostgreSQL store runs appends on several connections, so there each end is written at once.
    holdEnds: opts.storeConfig.backend === 'sqlite',
    ...(opts.taskFile ? { filename: opts.taskFile } : {}),
    log,
  });
  // On a shared database the global and each provider's limit hold across every supervisor, not
  // only within this one.
  const clusterSlots = openClusterSlots(opts.storeConfig);
  const runner = clusterSlots ? clusterGated(pool, clusterSlots, settings.providers.limits) : pool;
  // Everything else writes after the ends the thread holds. One owner closes attempts on this
  // handle: the handlers and take-overs ask it (and it logs here).
  const store = afterHeldEnds(opts.store, pool);
  attemptCloser(store, log);
  const limiter = globalSlots(limit);
  const nodeLimiter = clusterSlots ? clusterHeld(limiter, clusterSlots) : limiter;
  const providerSlots = providerSlotsOf(settings.providers.limits, new ProviderRates(settings.providers.rates));
  // The catalog in-process: chat turns and child runs' lookups are few and short, and the
  // supervisor keeps no catalog thread.
  const catalog = WorkflowCatalog.forHome(settings.home, { threadFile: null });
  const childSignals = new ChildRunSignals();
  const schedules = new ScheduleLoop({
    store, log, clock: clockNow,
    lookup: (name, query) => catalog.getAsync(name, query),
    declared: new DeclaredTriggers({ store, log, list: (query) => catalog.listAsync(query) }),
  });
  const supervisor = new Supervisor({
    store,
    limiter,
    providerSlots,
    perRunLimit: settings.perRunConcurrency,
    log,
    paths: settings.paths,
    schedulers: createSchedulerFactory({
      store, storeConfig: opts.storeConfig, pool: runner, limiter: nodeLimiter, providerSlots, settings, log, lockLeaseMs: runLeaseMs,
      kinds: createNodeKinds({ children: { lookup: (name, query) => catalog.getAsync(name, query), signals: childSignals } }),
    }),
    childSignals,
    schedules,
    upkeep: [new DeliveryRetention({ store, log, clock: clockNow, retentionDays: settings.hookDeliveryRetentionDays })],
    // The assistant's calls run in the worker pool.
    chat: {
      catalog,
      clock: Date.now,
      assistant: createChatAssistant({
        pool, storeConfig: opts.storeConfig, settings, store, credentials: credentialSourceFor(store, settings, log),
      }),
    },
    ...(opts.id ? { id: opts.id } : {}),
    timing: {
      ...(opts.runLeaseMs ? { runLeaseMs: opts.runLeaseMs } : {}),
      ...(renewDeadline !== undefined ? { renewDeadlineMs: renewDeadline } : {}),
    },
  });
  return { supervisor, pool, clusterSlots };
}
