import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * A run's USD budget through the real supervisor and the real Claude Code CLI (the adapter that
 * reports cost) against a local Messages API server: the run pauses before the attempt that would
 * start over budget, nothing is killed, and a resume with a raised budget completes it.
 */

const cli = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/cli.js');
let home: TempHome;
let server: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
});

/** A local Messages API server whose every answer costs the same, and Cairn using the real CLI against it. */
async function startPaidServer() {
  server = await startAnthropicServer(() => ({
    kind: 'stream', model: 'claude-sonnet-4-5-20250929', blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 1000, output_tokens: 100 },
  }));
  const cliHome = await mkdtemp(join(tmpdir(), 'cairn-claude-home-'));
  home.defer(() => rm(cliHome, { recursive: true, force: true }));
  return startServer(home, {
    ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-budget', CLAUDE_BIN_PATH: cli, HOME: cliHome,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
  });
}

it('pauses a run whose spend reached its budget before the next AI attempt, and a resume with a raised budget completes it', async () => {
  const server_ = await startPaidServer();
  await writeHomeWorkflow(home, 'budgeted', `name: budgeted
description: three paid steps under a budget
provider: claude
model: claude-sonnet-4-5
budget: { usd: 0.005 }
nodes:
  - id: one
    prompt: "step one"
  - id: two
    depends_on: [one]
    prompt: "step two"
  - id: three
    depends_on: [two]
    prompt: "step three"
`);
  const { runId } = await startRun(server_.url, 'budgeted');
  const statusIn = (statuses: string[]) =>
    waitFor(async () => {
      const detail = await getRun(server_.url, runId);
      return statuses.includes(detail.run.status) ? detail : undefined;
    }, { what: `the run to be ${statuses.join('|')}`, timeoutMs: 60_000 });
  const paused = await statusIn(['paused', 'failed', 'completed']);
  const failures = paused.events.filter((e) => e.event_type === 'node_failed').map((e) => `${e.step_name}: ${e.data.error}`);
  expect(failures).toEqual([]);
  expect(paused.run.status).toBe('paused');
  expect(paused.run.metadata.totals.total_cost_usd).toBeGreaterThanOrEqual(0.005);
  const ran = paused.events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name);
  expect(ran).not.toContain('three');
  expect(paused.events.find((e) => e.event_type === 'workflow_paused')?.data).toMatchObject({ type: 'budget' });
  expect(server.requests.length).toBe(ran.length);

  const bad = await fetch(`${server_.url}/api/workflows/runs/${runId}/resume`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ budgetUsd: -1 }),
  });
  expect(bad.status).toBe(400);
  const resumed = await fetch(`${server_.url}/api/workflows/runs/${runId}/resume`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ budgetUsd: 1 }),
  });
  expect(resumed.status).toBe(200);
  const done = await statusIn(['completed', 'failed']);
  expect(done.run.status).toBe('completed');
  expect(done.events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name)).toContain('three');
});

it('gives a child run what is left of its parent\'s budget when the child starts', async () => {
  const server_ = await startPaidServer();
  await writeHomeWorkflow(home, 'free-child', 'name: free-child\ndescription: no budget of its own\nnodes:\n  - id: one\n    bash: echo one\n');
  await writeHomeWorkflow(home, 'spends-then-calls', `name: spends-then-calls
description: a paid step, then a child run
provider: claude
model: claude-sonnet-4-5
budget: { usd: 1 }
nodes:
  - id: paid
    prompt: "step one"
  - id: sub
    depends_on: [paid]
    workflow: free-child
`);
  const { runId } = await startRun(server_.url, 'spends-then-calls');
  const done = await waitFor(async () => {
    const detail = await getRun(server_.url, runId);
    return ['completed', 'failed', 'paused'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the parent to end', timeoutMs: 60_000 });
  expect(done.run.status).toBe('completed');
  const spent = done.run.metadata.totals.total_cost_usd as number;
  expect(spent).toBeGreaterThan(0);
  const sub = done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'sub');
  const child = await getRun(server_.url, sub?.data.execution.diagnostics.childRunId as string);
  expect(child.run.metadata.budget.usd).toBeCloseTo(1 - spent, 9);
});
