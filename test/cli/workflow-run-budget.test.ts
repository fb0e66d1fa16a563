import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AnthropicServer } from '../helpers/anthropic-server.js';
import { startPaidClaude, writePaidFanOut } from '../helpers/paid-claude.js';
import type { RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun } from '../helpers/workflows.js';
import { runCliInProcess } from './cli-harness.js';

/**
 * A budget pause from the command line, through the real server and the real Claude Code CLI
 * (which reports cost): `cairn workflow run` says how to go on (a resume raising the budget, on
 * the run whose budget it is), and `cairn run resume --budget-usd` does it.
 */

let home: TempHome;
let cairn: RunningServer;
let messages: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
  ({ cairn, messages } = await startPaidClaude(home));
  await writePaidFanOut(home, { items: ['a', 'b', 'c'], budgetUsd: 0.005 });
});
afterEach(async () => {
  await home.close();
});

const env = () => ({ CAIRN_URL: cairn.url, NO_COLOR: '1' });

it('prints the resume that raises the budget when a run pauses on it, and `run resume --budget-usd` finishes the run', async () => {
  const paused = await runCliInProcess(['workflow', 'run', 'paid-fan-out'], { env: env(), cwd: home.home, stdinIsTTY: false });
  expect(paused.code).toBe(3);
  const runId = /Run (\S+) of workflow/.exec(paused.stdout)![1]!;
  expect(paused.stdout).toContain(`Run ${runId} is paused: budget exceeded: spent $0.01 of $0.01`);
  expect(paused.stdout).toContain(`Raise the budget and go on with:  cairn run resume ${runId} --budget-usd <usd>`);
  expect(paused.stdout).not.toContain('cairn run approve');
  expect(messages.requests.length).toBe(2);
  const shown = await runCliInProcess(['run', 'get', runId], { env: env(), cwd: home.home });
  expect(shown.stdout).toContain(`Paused    budget exceeded: spent $0.01 of $0.01 (cairn run resume ${runId} --budget-usd <usd> goes on)`);
  expect(shown.stdout).toContain('Cost      $0.0090 (its own $0.0000, its child runs $0.0090)');
  expect(shown.stdout).toContain('Budget    $0.0050');

  const bad = await runCliInProcess(['run', 'resume', runId, '--budget-usd', 'lots'], { env: env(), cwd: home.home });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--budget-usd must be a positive number of US dollars, such as 5 or 0.5, not 'lots'");

  const resumed = await runCliInProcess(['run', 'resume', runId.slice(0, 8), '--budget-usd', '0.5'], { env: env(), cwd: home.home });
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  const done = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed', 'paused'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 60_000 });
  expect(done.run.status).toBe('completed');
  expect(done.run.metadata.budget).toEqual({ usd: 0.5 });
  expect(messages.requests.length).toBe(3);
});

it('names the run whose budget it is when a child is resumed with --budget-usd', async () => {
  const paused = await runCliInProcess(['workflow', 'run', 'paid-fan-out'], { env: env(), cwd: home.home, stdinIsTTY: false });
  const runId = /Run (\S+) of workflow/.exec(paused.stdout)![1]!;
  const detail = await getRun(cairn.url, runId);
  const each = detail.events.filter((e) => e.step_name === 'each').at(-1)!;
  expect(each.data).toMatchObject({ interrupted: true });
  const children = await fetch(`${cairn.url}/api/workflows/runs/${runId}/fan-out/each`).then((r) => r.json() as Promise<{ items: { childRunId?: string; status: string }[] }>);
  const pausedChild = children.items.find((item) => item.status === 'paused')!.childRunId!;

  const refused = await runCliInProcess(['run', 'resume', pausedChild, '--budget-usd', '1'], { env: env(), cwd: home.home });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`this run was paused by the budget of run ${runId}, not by its own: resume run ${runId} with budgetUsd`);
});
