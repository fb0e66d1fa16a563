import { randomUUID } from 'node:crypto';
import { silentLogger } from '../../../src/shared/log.js';
import type { Store } from '../../../src/store/store.js';
import { ScheduleLoop } from '../../../src/supervisor/process/schedule-loop.js';
import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';
import type { TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';
import type { NewSchedule } from '../../../src/store/store.js';

/** A clock a test moves by hand: the store and the fire loops go by it. */
export function handClock(startIso: string) {
  let now = Date.parse(startIso);
  return {
    now: () => now,
    set: (iso: string) => void (now = Date.parse(iso)),
    advance: (ms: number) => void (now += ms),
  };
}

/** A home with the `tick` workflow (one quick bash node) and a store on the clock. */
export async function scheduleHome(home: TempHome, clock: () => number): Promise<Store> {
  await writeHomeWorkflow(home, 'tick', 'name: tick\ndescription: one quick node\ninputs:\n  note: { default: none }\nnodes:\n  - id: a\n    bash: echo tick\n');
  return home.openStore({ clock });
}

/** A fire loop over the home's catalog; `pass()` is called by the test, never by a timer. */
export function fireLoop(home: TempHome, store: Store, clock: () => number): ScheduleLoop {
  const catalog = WorkflowCatalog.forHome(home.home, { threadFile: null });
  return new ScheduleLoop({ store, clock, log: silentLogger(), lookup: (name, query) => catalog.getAsync(name, query) });
}

export function tickSchedule(overrides: Partial<NewSchedule> = {}): NewSchedule {
  return {
    id: randomUUID(), name: `tick-${randomUUID().slice(0, 6)}`, workflowName: 'tick', codebaseId: null, inputs: {},
    cron: '* * * * *', timezone: 'UTC', overlap: 'allow_all', catchUpMs: 3 * 60_000, ...overrides,
  };
}
