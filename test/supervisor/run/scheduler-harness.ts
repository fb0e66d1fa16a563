import { silentLogger, type Logger } from '../../../src/shared/log.js';
import type { Run } from '../../../src/store/schemas/run.js';
import type { Store } from '../../../src/store/store.js';
import { globalSlots } from '../../../src/supervisor/run/engine-slots.js';
import { createRunContext } from '../../../src/supervisor/run/node-context.js';
import { NodeEventFactory } from '../../../src/supervisor/run/node-events.js';
import type { AttemptOutcome, NodeAttempt, NodeHandlerSet } from '../../../src/supervisor/run/node-handler.js';
import { NodeTable } from '../../../src/supervisor/run/node-table.js';
import { compileRunPlan } from '../../../src/supervisor/run/run-plan.js';
import { createNodeKinds } from '../../../src/supervisor/nodes/node-kinds.js';
import { ChildRunSignals } from '../../../src/supervisor/children/child-signals.js';
import { RunScheduler } from '../../../src/supervisor/run/scheduler.js';
import type { WorkflowDefinition } from '../../../src/workflow/schema/workflow-schema.js';
import { createRunRow } from '../../helpers/supervisor.js';
import type { TempHome } from '../../helpers/temp-home.js';

/** The kinds' planning only: these schedulers run no `workflow:` node, so no child workflow is ever looked up. */
const NO_CHILDREN = { children: { lookup: () => Promise.reject(new Error('no child workflows in scheduler tests')), signals: new ChildRunSignals() } };

/** An attempt the test holds open and ends by hand. */
export interface HeldAttempt {
  attempt: NodeAttempt;
  end(outcome: AttemptOutcome): void;
}

/**
 * A node handler set whose attempts the test decides: each attempt is recorded, counted while in
 * flight, and ended by `script` (immediately) or by the test through `held`. It stands in for
 * the worker pool at the scheduler's one seam, so scheduling can be tested fast and exactly.
 */
export class ScriptedHandlers implements NodeHandlerSet {
  readonly started: NodeAttempt[] = [];
  readonly held: HeldAttempt[] = [];
  inFlight = 0;
  peakInFlight = 0;

  constructor(private readonly script: (attempt: NodeAttempt) => AttemptOutcome | 'hold' | Promise<AttemptOutcome>) {}

  handlerFor() {
    return {
      runAttempt: async (attempt: NodeAttempt): Promise<AttemptOutcome> => {
        this.started.push(attempt);
        this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
        try {
          const planned = this.script(attempt);
          if (planned !== 'hold') return await planned;
          return await new Promise<AttemptOutcome>((resolve) => this.held.push({ attempt, end: resolve }));
        } finally {
          this.inFlight--;
        }
      },
    };
  }

  /** Node ids in the order their attempts started. */
  order(): string[] {
    return this.started.map((a) => a.node.id);
  }
}

export interface SchedulerUnderTest {
  run: Run;
  table: NodeTable;
  scheduler: RunScheduler;
  store: Store;
  /** How many times the `when` condition of each node was evaluated. */
  conditionChecks: Map<string, number>;
}

/** A real run row (created and acquired in a real store) driven by a scheduler over `handlers`. */
export async function startScheduler(
  home: TempHome,
  yaml: string,
  handlers: NodeHandlerSet,
  opts: { perRunLimit?: number; globalLimit?: number; logFor?: (runId: string) => Logger } = {},
): Promise<SchedulerUnderTest> {
  const store = home.openStore();
  const created = await createRunRow(store, yaml);
  const run = (await store.acquireRun({
    runId: created.id, ownerId: 'sup-test', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [],
  }))!;
  const definition = (await store.getRunDefinition(run.id)) as WorkflowDefinition;
  const plan = compileRunPlan(definition, createNodeKinds(NO_CHILDREN).planning);
  const table = new NodeTable(plan);
  const context = createRunContext({ run, declaredInputs: [], artifactsDir: home.home, homeScripts: home.home }, table);
  const conditionChecks = new Map<string, number>();
  const scheduler = new RunScheduler(run, plan, table, {
    store,
    limiter: globalSlots(opts.globalLimit ?? 100),
    handlers,
    events: new NodeEventFactory(run),
    checkCondition: (node) => {
      conditionChecks.set(node.id, (conditionChecks.get(node.id) ?? 0) + 1);
      return context.checkCondition(node);
    },
    ownerId: 'sup-test',
    perRunLimit: opts.perRunLimit ?? 100,
    log: opts.logFor?.(run.id) ?? silentLogger(),
  });
  home.defer(() => scheduler.release(false));
  await scheduler.start();
  return { run, table, scheduler, store, conditionChecks };
}

/** A fan-out of `n` nodes `n0..n{n-1}` and, with `join`, one node depending on all of them. */
export function fanOutYaml(n: number, opts: { join?: boolean } = {}): string {
  const lines = ['name: fan', 'description: fan-out', 'nodes:'];
  for (let i = 0; i < n; i++) lines.push(`  - id: n${i}`, '    bash: "true"');
  if (opts.join) lines.push('  - id: join', `    depends_on: [${Array.from({ length: n }, (_, i) => `n${i}`).join(', ')}]`, '    bash: "true"');
  return lines.join('\n');
}
