import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { worktreeRefusalText } from '../../../src/codebases/worktree-adoption.js';
import type { Store } from '../../../src/store/store.js';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';
import { cloneLocally, git, registeredWidgetClone } from '../../api/codebases/git-fixtures.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/** The supervisor places runs on a codebase before their scheduler starts (real git, real supervisor). */

let home: TempHome;
let root: string;
let clone: string;
let store: Store;
beforeEach(async () => {
  home = await makeTempHome();
  ({ root, clone, store } = await registeredWidgetClone(home, 'cairn-iso-'));
});
afterEach(async () => {
  await home.close();
});

async function createRun(yaml: string, opts: { branch?: string } = {}): Promise<string> {
  const loaded = loadWorkflowText(yaml);
  if (!loaded.ok) throw new Error(loaded.error);
  const run = await store.createRun({
    id: randomUUID(), workflowName: loaded.workflow.name, conversationId: `conv-${randomUUID()}`, workingPath: clone,
    codebaseId: 'acme/widget', userMessage: '', inputs: {},
    metadata: opts.branch ? { isolation: { branch: opts.branch } } : {}, definition: loaded.workflow,
  });
  return run.id;
}

const quick = 'name: quick\ndescription: prints where it runs\nnodes:\n  - id: a\n    bash: pwd\n';

async function finished(runId: string) {
  return waitFor(async () => {
    const run = await store.getRun(runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  }, { what: `run ${runId} to finish` });
}

it('fails a run whose worktree path holds a full checkout, with the contract text, and takes its reservation back', async () => {
  const runId = await createRun(quick);
  const path = home.paths.codebaseWorktree('acme', 'widget', runId);
  await mkdir(dirname(path), { recursive: true });
  git(root, 'clone', '-q', clone, path);
  await startSupervisor(home);
  const run = await finished(runId);
  expect(run.status).toBe('failed');
  expect(run.error).toBe(`Run could not be started: ${worktreeRefusalText.fullCheckout(path)}`);
  expect(await store.listIsolationEnvironments('acme/widget')).toEqual([]);
});

it('adopts the worktree a crashed start left at the run’s path (this clone, the run’s branch)', async () => {
  const runId = await createRun(quick, { branch: 'feature/adopt' });
  const path = home.paths.codebaseWorktree('acme', 'widget', runId);
  await mkdir(dirname(path), { recursive: true });
  git(clone, 'worktree', 'add', '-q', '-b', 'feature/adopt', path);
  await writeFile(join(path, 'left-by-the-crash.txt'), 'x');
  await startSupervisor(home);
  const run = await finished(runId);
  expect(run.status).toBe('completed');
  expect(run.working_path).toBe(path);
  expect(existsSync(join(path, 'left-by-the-crash.txt'))).toBe(true);
  const [env] = await store.listIsolationEnvironments('acme/widget');
  expect([env?.branch_name, env?.working_path, env?.locked_by_run]).toEqual(['feature/adopt', path, null]);
});

it('refuses a worktree of a different clone at the run’s path, naming that clone', async () => {
  const other = cloneLocally(root, join(root, 'remotes', 'acme', 'widget.git'), 'widget-2');
  const runId = await createRun(quick);
  const path = home.paths.codebaseWorktree('acme', 'widget', runId);
  git(other, 'worktree', 'add', '-q', '-b', `cairn/quick-${runId.slice(0, 8)}`, path);
  await startSupervisor(home);
  const run = await finished(runId);
  expect(run.error).toBe(`Run could not be started: ${worktreeRefusalText.differentClone(path, other)}`);
});

it('holds the checkout for one worktree.enabled: false run at a time; a mutates_checkout: false run shares it', async () => {
  const gate = join(root, 'gate');
  const holding = `name: inplace\ndescription: in the checkout\nworktree:\n  enabled: false\nnodes:\n  - id: a\n    bash: "touch .held; while [ ! -e '${gate}' ]; do sleep 0.05; done"\n`;
  const first = await createRun(holding);
  await startSupervisor(home);
  await waitFor(() => existsSync(join(clone, '.held')), { what: 'the first run to hold the checkout' });
  const [use] = await store.listIsolationEnvironments('acme/widget');
  expect([use?.provider, use?.working_path, use?.locked_by_run]).toEqual(['checkout', clone, first]);

  const second = await createRun(holding);
  const refused = await finished(second);
  expect(refused.error).toContain(`The checkout ${clone} is in use by run ${first}`);
  const reader = await createRun('name: reader\ndescription: reads\nmutates_checkout: false\nnodes:\n  - id: a\n    bash: pwd\n');
  expect((await finished(reader)).status).toBe('completed');

  await writeFile(gate, '');
  expect((await finished(first)).status).toBe('completed');
  expect(await store.listIsolationEnvironments('acme/widget')).toEqual([]);
});
