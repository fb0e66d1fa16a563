import { randomUUID } from 'node:crypto';
import { silentLogger, type Logger } from '../../src/shared/log.js';
import { loadSettings } from '../../src/shared/config.js';
import type { Run } from '../../src/store/schemas/run.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import { sqliteStoreConfig, type Store } from '../../src/store/open-store.js';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { createSupervisorRuntime } from '../../src/supervisor/process/runtime.js';
import type { Supervisor } from '../../src/supervisor/process/supervisor.js';
import type { WorkerPool } from '../../src/worker/pool/pool.js';
import { builtTaskFile } from './built-files.js';
import type { TempHome } from './temp-home.js';
import { waitFor } from './wait-for.js';


/** An event whose data tests read freely (the records inside are validated when written). */
export type LooseEvent = RunEvent & { data: Record<string, any> };

export interface SupervisorHarness {
  supervisor: Supervisor;
  store: Store;
  pool: WorkerPool;
  /** Creates a pending run of a workflow given as YAML text, as the API would. */
  createRun(yaml: string, opts?: Parameters<typeof createRunRow>[2]): Promise<Run>;
  waitForStatus(runId: string, statuses: readonly Run['status'][]): Promise<Run>;
  events(runId: string): Promise<LooseEvent[]>;
  stop(opts?: { drain: boolean }): Promise<void>;
}

/** A real supervisor (real store, real Piscina pool over the built task file) in this process. */
export async function startSupervisor(
  home: TempHome,
  opts: { limit?: number; id?: string; env?: Record<string, string>; log?: Logger; threads?: number } = {},
): Promise<SupervisorHarness> {
  const settings = { ...loadSettings({ CAIRN_HOME: home.home, ...opts.env }), maxConcurrency: opts.limit ?? 4, perRunConcurrency: opts.limit ?? 4 };
  const store = home.openStore();
  const { supervisor, pool } = createSupervisorRuntime({
    store,
    storeConfig: sqliteStoreConfig(home.paths.database),
    settings,
    log: opts.log ?? silentLogger(),
    threads: opts.threads ?? 2,
    taskFile: builtTaskFile,
    ...(opts.id ? { id: opts.id } : {}),
  });
  await supervisor.start();
  let stopped = false;
  const stop = async (stopOpts = { drain: false }) => {
    if (stopped) return;
    stopped = true;
    await supervisor.shutdown(stopOpts);
    await pool.close();
  };
  home.defer(() => stop());
  return {
    supervisor,
    store,
    pool,
    createRun: (yaml, runOpts) => createRunRow(store, yaml, runOpts),
    waitForStatus: (runId, statuses) =>
      waitFor(async () => {
        const run = await store.getRun(runId);
        return run && statuses.includes(run.status) ? run : undefined;
      }, { what: `run ${runId} to reach ${statuses.join('|')}` }),
    events: (runId) => store.listRunEvents(runId) as Promise<LooseEvent[]>,
    stop,
  };
}

/** Creates a pending run (and its start job) of a workflow given as YAML text, as the API would. */
export async function createRunRow(
  store: Store,
  yaml: string,
  opts: { message?: string; inputs?: Run['inputs']; workingPath?: string; metadata?: Record<string, unknown> } = {},
): Promise<Run> {
  const loaded = loadWorkflowText(yaml);
  if (!loaded.ok) throw new Error(`test workflow does not load: ${loaded.error}`);
  const inputs: Run['inputs'] = {};
  for (const [name, spec] of Object.entries(loaded.workflow.inputs ?? {})) {
    if (spec.default !== undefined && spec.default !== null) inputs[name] = spec.default;
  }
  return store.createRun({
    id: randomUUID(),
    workflowName: loaded.workflow.name,
    conversationId: `conv-${randomUUID()}`,
    workingPath: opts.workingPath ?? null,
    userMessage: opts.message ?? '',
    inputs: { ...inputs, ...opts.inputs },
    metadata: { ...(loaded.parseWarnings.length ? { parse_warnings: loaded.parseWarnings } : {}), ...opts.metadata },
    definition: loaded.workflow,
  });
}

/** What an agent does while its node runs (agent-activity.ts): not part of a node's timeline. */
const agentActivityTypes = new Set(['agent_text', 'agent_thinking', 'tool_called', 'tool_completed']);

/** The node events of a run as `type:node` strings, in order (without the agents' activity). */
export function nodeTimeline(events: readonly RunEvent[]): string[] {
  return events.filter((e) => e.step_name !== null && !agentActivityTypes.has(e.event_type)).map((e) => `${e.event_type}:${e.step_name}`);
}
