import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import { ATTEMPT_CONTROL_CHANNEL, attemptNoticeSchema, type AttemptNotice } from '../../src/worker/attempt-protocol.js';
import type { ExecAttemptTask } from '../../src/worker/nodes/exec/exec-task.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import { sqliteStoreConfig, type Store } from '../../src/store/open-store.js';
import { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from '../../src/worker/pool/pool.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';

export { builtTaskFile } from '../helpers/built-files.js';
import { builtTaskFile } from '../helpers/built-files.js';

export interface ExecHarness {
  home: TempHome;
  store: Store;
  pool: WorkerPool;
  runId: string;
  conversationId: string;
  /** An exec attempt of a fresh node in the harness's run; `script` is the bash body. */
  task(script: string, overrides?: Partial<ExecAttemptTask>): ExecAttemptTask;
  events(nodeId?: string): Promise<RunEvent[]>;
  /** Every notice workers post on the control channel, as they arrive. */
  notices: AttemptNotice[];
}

/** A temp home with a run row, and a real pool of two threads over the built task file. */
export async function makeExecHarness(poolOpts: Partial<WorkerPoolOptions> = {}): Promise<ExecHarness> {
  const filename = poolOpts.filename ?? builtTaskFile;
  if (!existsSync(filename)) throw new Error(`${filename} is missing: run 'npm run build' before the worker tests`);
  const home = await makeTempHome();
  const store = home.openStore();
  const run = await store.createRun(newRun());
  const pool = createWorkerPool({ store, maxThreads: 2, concurrentTasksPerWorker: 4, ...poolOpts, filename });
  home.defer(() => pool.close());
  const notices: AttemptNotice[] = [];
  const listener = new BroadcastChannel(ATTEMPT_CONTROL_CHANNEL);
  listener.onmessage = (event) => {
    const parsed = attemptNoticeSchema.safeParse((event as MessageEvent).data);
    if (parsed.success) notices.push(parsed.data);
  };
  home.defer(() => listener.close());
  let counter = 0;
  return {
    home,
    store,
    pool,
    runId: run.id,
    conversationId: run.conversation_id,
    notices,
    task(script, overrides = {}) {
      const nodeId = overrides.nodeId ?? `node-${++counter}`;
      return {
        kind: 'exec',
        store: sqliteStoreConfig(home.paths.database),
        runId: run.id,
        conversationId: run.conversation_id,
        path: nodeId,
        nodeId,
        runtime: 'sh',
        legacyType: 'bash',
        invocation: { id: randomUUID(), startedAt: new Date().toISOString(), loopPath: [] },
        attempt: { id: randomUUID(), number: 1 },
        script,
        deps: [],
        cwd: home.home,
        env: {},
        timeoutMs: 60_000,
        killGraceMs: 200,
        outputSpillDir: join(home.home, 'spills'),
        ...overrides,
      };
    },
    async events(nodeId) {
      const all = await store.listRunEvents(run.id);
      return nodeId === undefined ? all : all.filter((e) => e.step_name === nodeId);
    },
  };
}
