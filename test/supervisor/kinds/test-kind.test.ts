import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fullOutput } from '../../../src/records/full-output.js';
import { rebuildRunSnapshot } from '../../../src/records/run-snapshot.js';
import { loadSettings } from '../../../src/shared/config.js';
import { silentLogger } from '../../../src/shared/log.js';
import { sqliteStoreConfig, type Store } from '../../../src/store/open-store.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { ChildRunSignals } from '../../../src/supervisor/children/child-signals.js';
import { createNodeKinds } from '../../../src/supervisor/nodes/node-kinds.js';
import { createRunContext } from '../../../src/supervisor/run/node-context.js';
import { NodeEventFactory } from '../../../src/supervisor/run/node-events.js';
import { NodeTable } from '../../../src/supervisor/run/node-table.js';
import { compileRunPlan } from '../../../src/supervisor/run/run-plan.js';
import { globalSlots, runSlots as runSlotsOf } from '../../../src/supervisor/run/engine-slots.js';
import { RunScheduler } from '../../../src/supervisor/run/scheduler.js';
import type { WorkflowDefinition } from '../../../src/workflow/schema/workflow-schema.js';
import { workerKindTable } from '../../../src/worker/nodes/worker-kinds.js';
import { createWorkerPool, type WorkerPool } from '../../../src/worker/pool/pool.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { bundleThreadEntry } from '../../helpers/thread-bundle.js';
import { shoutKind } from './test-kind/kind.js';
import { shoutWorkerKind } from './test-kind/worker-kind.js';
import { openRunFiles } from '../../../src/supervisor/run/run-files.js';

/**
 * A node kind added from a test, without editing a file of src/: its supervisor side
 * (test-kind/kind.ts) joins the node kinds given to the registry, its worker side
 * (test-kind/worker-kind.ts) joins the worker kinds of the thread (test-kind/thread-task.ts) and of the pool. Its
 * node runs through the real plan compiler, scheduler, store (SQLite in a temp dir) and worker
 * pool (Piscina threads), beside a built-in kind's node whose output it reads.
 */

const threadTask = fileURLToPath(new URL('./test-kind/thread-task.ts', import.meta.url));
let threadEntry: string;
beforeAll(async () => {
  const bundle = await bundleThreadEntry(threadTask);
  threadEntry = bundle.file;
  return bundle.remove;
});
const noChildren = { children: { lookup: () => Promise.reject(new Error('this test starts no child workflow')), signals: new ChildRunSignals() } };

/**
 * The language has no `shout:` key (a new kind's key is added to workflow/node-schema.ts), so the
 * definition is written as the stored snapshot the scheduler reads, not loaded from YAML.
 */
const definition = {
  name: 'shout-test',
  description: 'a built-in node and a test-kind node that reads its output',
  nodes: [
    { id: 'greet', bash: 'printf hello' },
    { id: 'loud', depends_on: ['greet'], shout: '$greet.output, world' },
  ],
} as unknown as WorkflowDefinition;

let home: TempHome;
let store: Store;
let pool: WorkerPool;

beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
  pool = createWorkerPool({ store, maxThreads: 1, concurrentTasksPerWorker: 4, filename: threadEntry, kinds: workerKindTable([shoutWorkerKind]) });
  home.defer(() => pool.close());
});
afterEach(async () => {
  await home.close();
});

async function acquiredRun(): Promise<Run> {
  const created = await store.createRun({
    id: randomUUID(), workflowName: definition.name, conversationId: `conv-${randomUUID()}`, workingPath: home.home,
    userMessage: '', inputs: {}, metadata: {}, definition,
  });
  return (await store.acquireRun({ runId: created.id, ownerId: 'sup-test', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] }))!;
}

describe('a node kind registered by a test', () => {
  it('runs its node on a worker thread through the real scheduler and pool, after a built-in node whose output it reads', async () => {
    const run = await acquiredRun();
    const kinds = createNodeKinds(noChildren, [shoutKind]);
    const plan = compileRunPlan(definition, kinds.planning);
    expect(plan.nodes.map((n) => n.action.type)).toEqual(['exec', 'shout']);

    const settings = loadSettings({ CAIRN_HOME: home.home });
    const table = new NodeTable(plan);
    const artifactsDir = join(home.home, 'artifacts');
    const context = createRunContext({ run, declaredInputs: [], artifactsDir, homeScripts: settings.paths.scripts, home: home.home }, table);
    const events = new NodeEventFactory(run);
    const limiter = globalSlots(4);
    const runSlots = runSlotsOf(4);
    const { handlers, providerOf } = kinds.forRun({
      store, storeConfig: sqliteStoreConfig(home.paths.database), run, definition, settings, pool, runEnv: {},
      workingPath: home.home, artifactsDir, envFiles: 'load',
      files: await openRunFiles(store, run, definition, {
        dirs: { home: home.home, workingPath: home.home, homeScripts: settings.paths.scripts }, runFolder: join(home.home, 'run'), reload: false, log: silentLogger(),
      }),
      runVariables: { WORKFLOW_ID: run.id, ARTIFACTS_DIR: artifactsDir },
      models: {}, context, events, limiter, runSlots, killGraceMs: 1_000, log: silentLogger(),
    });
    const scheduler = new RunScheduler(run, plan, table, {
      providerOf, store, limiter, handlers, events, checkCondition: context.checkCondition, ownerId: 'sup-test',
      perRunLimit: 4, runSlots, log: silentLogger(),
    });
    home.defer(() => scheduler.release(false));
    await scheduler.start();

    expect(await scheduler.done).toBe('completed');
    const snapshot = rebuildRunSnapshot(await store.listRunEvents(run.id));
    const loud = snapshot.nodes.get('loud')!;
    expect(loud.status).toBe('completed');
    expect(await fullOutput(loud)).toBe('HELLO, WORLD');
    expect(snapshot.nodes.get('greet')?.status).toBe('completed');
  });

  it('is a node no kind runs when it is not registered: its attempt fails with a configuration error', () => {
    const plan = compileRunPlan(definition, createNodeKinds(noChildren).planning);
    expect(plan.nodes.map((n) => n.action.type)).toEqual(['exec', 'unsupported']);
  });

  it('cannot take the action type of a built-in kind', () => {
    expect(() => createNodeKinds(noChildren, [{ ...shoutKind, type: 'exec' }])).toThrow(/two node kinds have the action type 'exec'/);
  });
});
