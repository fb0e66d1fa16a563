import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { nodeTimeline, startSupervisor, type LooseEvent, type SupervisorHarness } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * The upstream system's deterministic end-to-end workflows, run unchanged from the corpus
 * (`test/fixtures/corpus`), in a project folder holding their `.archon/` scripts, by a real
 * supervisor with real bash. bun comes from the project's dev dependencies (npm puts
 * node_modules/.bin on PATH); uv is not installable on these machines, so its node fails with
 * the runtime-not-found error, as it must.
 */
const e2e = fileURLToPath(new URL('../fixtures/corpus/upstream-e2e/', import.meta.url));
const workflow = (name: string) => readFileSync(join(e2e, 'workflows', `${name}.yaml`), 'utf8');

let home: TempHome;
let project: string;
let sup: SupervisorHarness;
beforeEach(async () => {
  home = await makeTempHome();
  project = await mkdtemp(join(tmpdir(), 'cairn-project-'));
  home.defer(() => rm(project, { recursive: true, force: true }));
  cpSync(join(e2e, 'scripts'), join(project, '.archon', 'scripts'), { recursive: true });
  sup = await startSupervisor(home);
});
afterEach(async () => {
  await home.close();
});

const output = (events: LooseEvent[], id: string) =>
  events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output as string | undefined;

it('runs e2e-deterministic: bash, bun script, output references, conditions and joins', async () => {
  const run = await sup.createRun(workflow('e2e-deterministic'), { workingPath: project });
  const done = await sup.waitForStatus(run.id, ['completed', 'failed']);
  const events = await sup.events(run.id);

  expect(output(events, 'bash-echo')).toBe('{"status":"ok","value":42}');
  expect(JSON.parse(output(events, 'script-bun')!)).toMatchObject({ echoed: 'no-input' });
  // The upstream engine splices the JSON into the author's single quotes, where bash then
  // brace-expands it ('status:ok value:42'); Cairn hands the value through the environment, so
  // the node prints exactly what its producer printed.
  expect(output(events, 'bash-read-output')).toBe('upstream-status: {"status":"ok","value":42}');
  expect(output(events, 'branch-true')).toBe('branch-true-ran');
  expect(output(events, 'merge-node')).toBe('merge-ok: true=branch-true-ran false=');
  const skipped = (id: string) => events.find((e) => e.step_name === id && e.event_type === 'node_skipped')?.data.reason;
  expect(skipped('branch-false')).toBe('when_condition');

  // No uv here: the python node fails at once with a clear message, and the final check, which
  // needs every upstream node, is skipped for it.
  const python = events.find((e) => e.step_name === 'script-python' && e.event_type === 'node_failed');
  expect(python?.data.error).toBe("runtime not found: 'uv' is not installed or not on PATH (needed by node 'script-python')");
  expect(skipped('verify-all')).toBe('trigger_rule');
  expect(done.status).toBe('failed');
  expect(done.error).toBe(
    "DAG workflow 'e2e-deterministic' completed with failures: 'script-python': runtime not found: 'uv' is not installed or not on PATH (needed by node 'script-python')",
  );
});

it('runs e2e-echo-child with its argument, and fails it on a fail- argument', async () => {
  const ok = await sup.createRun(workflow('e2e-echo-child'), { message: 'two', workingPath: project });
  expect((await sup.waitForStatus(ok.id, ['completed', 'failed'])).status).toBe('completed');
  expect(output(await sup.events(ok.id), 'echo')).toBe('child-ok: two');

  const failing = await sup.createRun(workflow('e2e-echo-child'), { message: 'fail-3', workingPath: project });
  expect((await sup.waitForStatus(failing.id, ['completed', 'failed'])).status).toBe('failed');
  expect(nodeTimeline(await sup.events(failing.id))).toEqual(['node_started:echo', 'node_failed:echo']);
});

it('runs e2e-worktree-disabled in the live checkout of a git repository', async () => {
  execFileSync('git', ['init', '-q', project]);
  const run = await sup.createRun(workflow('e2e-worktree-disabled'), { workingPath: project });
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(output(await sup.events(run.id), 'assert-live-checkout')).toMatch(/PASS: ran in live checkout/);
});
