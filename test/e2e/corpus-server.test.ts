import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun } from '../helpers/workflows.js';

/**
 * The upstream's deterministic corpus workflows (no AI provider; child runs of e2e-echo-child), unchanged, in a
 * project's `.archon/` folder, run through the real server (POST /api/workflows/{name}/run with
 * the project as cwd) by its real supervisor with real bash; each ends as its header says.
 */
const e2e = fileURLToPath(new URL('../fixtures/corpus/upstream-e2e/', import.meta.url));

let home: TempHome;
let server: RunningServer;
let project: string;
// One server for the file; each test gets a project folder of its own (one of them makes it a git
// repository), and asks about its own runs only.
beforeAll(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'cairn-project-'));
  home.defer(() => rm(project, { recursive: true, force: true }));
  cpSync(join(e2e, 'scripts'), join(project, '.archon', 'scripts'), { recursive: true });
  mkdirSync(join(project, '.archon', 'workflows'), { recursive: true });
  for (const name of ['e2e-deterministic', 'e2e-joins', 'e2e-worktree-disabled', 'e2e-echo-child', 'e2e-fanout-alldone', 'e2e-fanout-allsuccess']) {
    cpSync(join(e2e, 'workflows', `${name}.yaml`), join(project, '.archon', 'workflows', `${name}.yaml`));
  }
});

async function run(name: string, message = '') {
  const res = await fetch(`${server.url}/api/workflows/${name}/run?cwd=${encodeURIComponent(project)}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  const { runId } = (await res.json()) as { runId: string };
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: `${name} to finish`, timeoutMs: 60_000 });
}

const output = (events: Record<string, any>[], id: string) =>
  events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output as string | undefined;

it('e2e-joins ends completed: all_done and none_failed joins over a skip, always_run, and a loop_group ended by until_bash', async () => {
  const { run: done, events } = await run('e2e-joins');
  expect(done.status).toBe('completed');
  expect(output(events, 'verify')).toBe('ALL JOINS OK (loop ran 3 iterations)');
  expect(events.filter((e) => e.step_name === 'countdown/tick' && e.event_type === 'node_completed').map((e) => e.data.execution.invocation.loopPath))
    .toEqual([1, 2, 3].map((iteration) => [{ groupId: 'countdown', iteration }]));
  expect(existsSync(join(project, '.e2e-joins-counter'))).toBe(false);
  // Its `output_type: probe-seed` node leaves its output_type files, as the upstream writes them.
  const nodes = join(home.paths.runArtifacts(done.id as string), 'nodes');
  expect(readFileSync(join(nodes, 'seed.md'), 'utf8')).toBe('seed-ok');
  expect(JSON.parse(readFileSync(join(nodes, 'seed.meta.json'), 'utf8'))).toMatchObject({ outputType: 'probe-seed', runId: done.id, size: 7 });
});

it('e2e-deterministic runs its bash, bun, condition and join nodes; without uv on this machine its python node fails, so the run fails naming it', async () => {
  const { run: done, events } = await run('e2e-deterministic');
  expect(output(events, 'bash-echo')).toBe('{"status":"ok","value":42}');
  expect(output(events, 'branch-true')).toBe('branch-true-ran');
  expect(output(events, 'merge-node')).toBe('merge-ok: true=branch-true-ran false=');
  expect(done.status).toBe('failed');
  expect(done.error).toContain("'script-python': runtime not found: 'uv'");
});

it('e2e-worktree-disabled ends completed in the live checkout of a git repository', async () => {
  execFileSync('git', ['init', '-q', project]);
  const { run: done, events } = await run('e2e-worktree-disabled');
  expect(done.status).toBe('completed');
  expect(output(events, 'assert-live-checkout')).toMatch(/PASS: ran in live checkout/);
});

it('e2e-fanout-alldone ends completed: the all_done join aggregates two children and the failed one, in item order', async () => {
  const { run: done, events } = await run('e2e-fanout-alldone');
  expect(done.status).toBe('completed');
  expect(output(events, 'verify')).toContain('ALL_DONE AGGREGATED A FAILED CHILD OK');
  const spread = JSON.parse(output(events, 'spread')!) as unknown[];
  expect(spread.slice(0, 2)).toEqual(['child-ok: one', 'child-ok: two']);
  expect(spread[2]).toMatchObject({ failed: true, status: 'failed' });
});

it('e2e-fanout-allsuccess ends failed as its header says: the failure is the spread node\'s, and report is skipped', async () => {
  const { run: done, events } = await run('e2e-fanout-allsuccess');
  expect(done.status).toBe('failed');
  const failed = events.find((e) => e.step_name === 'spread' && e.event_type === 'node_failed');
  expect(failed?.data.execution.lifecycle.error).toContain('1 of 3 fan-out items failed (join: all_success)');
  expect(events.find((e) => e.step_name === 'report')?.event_type).toBe('node_skipped');
  expect(events.some((e) => e.step_name === 'report' && e.event_type === 'node_started')).toBe(false);
});

it('e2e-echo-child echoes its argument and fails on a fail- argument', async () => {
  const ok = await run('e2e-echo-child', 'two');
  expect(ok.run.status).toBe('completed');
  expect(output(ok.events, 'echo')).toBe('child-ok: two');
  const failing = await run('e2e-echo-child', 'fail-3');
  expect(failing.run.status).toBe('failed');
});

it('the corpus files are the upstream’s, unchanged', () => {
  expect(readFileSync(join(project, '.archon', 'workflows', 'e2e-joins.yaml'), 'utf8')).toBe(readFileSync(join(e2e, 'workflows', 'e2e-joins.yaml'), 'utf8'));
});
