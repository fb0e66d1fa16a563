import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/log.js';
import type { Store } from '../../../src/store/store.js';
import { DeclaredTriggers } from '../../../src/supervisor/process/declared-triggers.js';
import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

let home: TempHome;
let store: Store;
let project: string;
beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
  project = await mkdtemp(join(tmpdir(), 'cairn-declared-'));
  home.defer(() => rm(project, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
});

const review = (cron: string, extra = '') =>
  `name: nightly-review\ndescription: d\ninputs:\n  depth: { default: '1' }\ntriggers:\n  - schedule: { cron: '${cron}', timezone: Europe/Berlin, inputs: { depth: 2 }${extra} }\nnodes:\n  - id: a\n    bash: echo hi\n`;

/** A fresh catalog each sync, as a long-lived one sees a changed file. */
const declared = () => {
  const catalog = WorkflowCatalog.forHome(home.home, { threadFile: null });
  return new DeclaredTriggers({ store, log: silentLogger(), list: (query) => catalog.listAsync(query) });
};

describe('schedules declared in workflow files', () => {
  it("keeps a home workflow's trigger as a schedule: created, updated in place (pause kept), removed with the trigger", async () => {
    await writeHomeWorkflow(home, 'nightly-review', review('30 2 * * *'));
    await declared().sync();
    const made = await store.getSchedule('nightly-review#0');
    expect(made).toMatchObject({ origin: 'workflow', codebase_id: null, cron: '30 2 * * *', timezone: 'Europe/Berlin', inputs: { depth: '2' }, overlap: 'skip', catch_up_ms: 3_600_000 });
    await store.setSchedulePaused(made!.id, true);
    await writeHomeWorkflow(home, 'nightly-review', review('0 4 * * 1-5', ', overlap: buffer_one, catch_up: 15m'));
    await declared().sync();
    expect(await store.getSchedule('nightly-review#0')).toMatchObject({ id: made!.id, cron: '0 4 * * 1-5', overlap: 'buffer_one', catch_up_ms: 900_000, paused: true });
    // A file that stops loading keeps its schedule as it was; the trigger taken out removes it.
    await writeHomeWorkflow(home, 'nightly-review', 'name: nightly-review\ndescription: d\nnodes: [oops\n');
    await declared().sync();
    expect(await store.getSchedule('nightly-review#0')).toMatchObject({ id: made!.id });
    await writeHomeWorkflow(home, 'nightly-review', 'name: nightly-review\ndescription: d\nnodes:\n  - id: a\n    bash: echo hi\n');
    await declared().sync();
    expect(await store.listSchedules()).toEqual([]);
  });

  it("runs a project workflow's trigger on its codebase, named for the codebase", async () => {
    await mkdir(join(project, '.cairn', 'workflows'), { recursive: true });
    await writeFile(join(project, '.cairn', 'workflows', 'nightly-review.yaml'), review('30 2 * * *'));
    await store.registerCodebase({
      id: 'acme/widget', name: 'acme/widget', repository_url: null, default_cwd: project, default_branch: 'main', kind: 'folder', managed: false,
      env_scan: { status: 'clean', files: [], keys: [], scanned_at: '2026-01-01T00:00:00.000Z' },
    });
    await declared().sync();
    expect(await store.getSchedule('acme/widget:nightly-review#0')).toMatchObject({ codebase_id: 'acme/widget', workflow_name: 'nightly-review', origin: 'workflow' });
    // The home scope declares nothing: the project's schedule is not the home's to remove.
    await declared().sync();
    expect((await store.listSchedules()).map((s) => s.name)).toEqual(['acme/widget:nightly-review#0']);
  });
});
