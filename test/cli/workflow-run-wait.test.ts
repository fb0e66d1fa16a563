import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { capture, runCliInProcess } from './cli-harness.js';

// One server for the file: each test starts its own run of the same gated workflow.
let home: TempHome;
let server: RunningServer;
beforeAll(async () => {
  home = await makeTempHome();
  server = await startServer(home);
  await writeHomeWorkflow(home, 'gated', `name: gated
description: a gate, then the work
nodes:
  - id: review
    approval:
      message: "Ship it?"
      capture_response: true
  - id: work
    depends_on: [review]
    bash: 'printf "shipped: %s" "$review.output"'
`);
});
afterAll(async () => {
  await home.close();
});

const env = () => ({ CAIRN_URL: server.url, NO_COLOR: '1' });

async function pausedRunId(stdout: { text: string }): Promise<string> {
  return waitFor(() => /Run (\S+) is paused/.exec(stdout.text)?.[1], { what: 'the run to pause' });
}

it('run from a terminal, `workflow run` waits at a paused gate and follows the run on after it is approved', async () => {
  const stdout = capture();
  const running = runCliInProcess(['workflow', 'run', 'gated', '--output', 'all'], { env: env(), cwd: home.home, stdinIsTTY: true, stdout });
  const runId = await pausedRunId(stdout);
  expect(stdout.text).toContain('Waiting for the run to go on');
  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/approve`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ comment: 'yes' }),
  });
  expect(res.status).toBe(200);
  const result = await running;
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('shipped: yes');
  expect(result.stdout).toContain(`Run ${runId} completed`);
});

it('run from a terminal, a reject that cancels the run ends the command with status 1', async () => {
  const stdout = capture();
  const running = runCliInProcess(['workflow', 'run', 'gated'], { env: env(), cwd: home.home, stdinIsTTY: true, stdout });
  const runId = await pausedRunId(stdout);
  await fetch(`${server.url}/api/workflows/runs/${runId}/reject`, { method: 'POST' }).then((r) => r.arrayBuffer());
  const result = await running;
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Run ${runId} was cancelled`);
});

it('with stdin not a terminal, `workflow run` exits with status 3 at the gate', async () => {
  const result = await runCliInProcess(['workflow', 'run', 'gated'], { env: env(), cwd: home.home, stdinIsTTY: false });
  expect(result.code).toBe(3);
  expect(result.stdout).toContain('is paused: Approval required at \'review\': Ship it?');
});
