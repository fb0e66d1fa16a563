import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PAID_ANSWER_USD, paidAnswer, startClaudeCli } from '../helpers/paid-claude.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { holdWriteLock } from '../helpers/write-lock.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Another program holds the database's write lock (BEGIN IMMEDIATE) for longer than the store's
 * busy budget (30 s by default; 2 s here, through CAIRN_STORE_BUSY_MS) while a node ends. Nothing
 * crashes: once the lock is released, the node's success must be recorded, once, and the run must
 * go on; the node must not run again. How long the lock is held is measured by the store itself:
 * a write the API starts after the node ended is refused once the budget is spent, so by then the
 * node's own end record has waited past the budget too.
 */

/** The store's busy budget for these servers. */
const busyBudget = { CAIRN_STORE_BUSY_MS: '2000' };

/** A write through the API, started now: while the lock is held it is refused once the budget is spent. */
async function expectRefusedWrite(url: string): Promise<void> {
  const answer = await fetch(`${url}/api/conversations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(answer.status).toBe(503);
  expect(await answer.json()).toMatchObject({ code: 'STORE_UNAVAILABLE', error: expect.stringMatching(/stayed busy for 2 s/) });
}

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a node that ends while another process holds the write lock past the store’s busy budget: its success is recorded once the lock is released, and the run completes', async () => {
  const server = await startServer(home, busyBudget);
  const log = join(home.home, 'executions.log');
  await writeHomeWorkflow(home, 'locked-long', `name: locked-long
description: a node whose end is written while the database is locked for long
nodes:
  - id: n
    bash: "echo start >> '${log}'; while [ ! -e go ]; do sleep 0.05; done; touch ended; echo done"
  - id: after
    depends_on: [n]
    bash: echo after
`);
  const { runId } = await startRun(server.url, 'locked-long');
  await waitFor(async () => (await getRun(server.url, runId)).events.some((e) => e.event_type === 'node_started'), {
    what: 'the node to start',
  });
  const lock = await holdWriteLock(home);
  const scratch = home.paths.scratch(runId);
  await writeFile(join(scratch, 'go'), '');
  await waitFor(() => existsSync(join(scratch, 'ended')), { what: 'the node’s program to end' });
  // A write the API starts now gives up after the budget CAIRN_STORE_BUSY_MS set, with a 503: the
  // node's end record, whose writing began before, has waited past the budget by then.
  await expectRefusedWrite(server.url);
  await lock.release();

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 60_000 });
  const timeline = events.map((e) => `${e.event_type}:${e.step_name ?? ''}`);
  expect(timeline.filter((t) => t.endsWith(':n'))).toEqual(['node_started:n', 'node_completed:n']);
  expect(run.status).toBe('completed');
  expect(events.at(-1)!.event_type).toBe('workflow_completed');
  expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['start']);
}, 120_000);

it('a paid AI attempt that ends while another process holds the write lock past the store’s busy budget: its success and its spend are recorded once the lock is released', async () => {
  let answer!: () => void;
  const released = new Promise<void>((resolve) => (answer = resolve));
  home.defer(() => answer());
  const { messages, cairn: server } = await startClaudeCli(home, () => ({ ...paidAnswer, heldUntil: released }), busyBudget);
  await writeHomeWorkflow(home, 'paid-locked', `name: paid-locked
description: a paid step whose end is written while the database is locked for long
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: ask
    prompt: "say done"
`);
  const { runId } = await startRun(server.url, 'paid-locked');
  await waitFor(() => messages.requests.length >= 1, { what: 'the CLI to call the Messages API', timeoutMs: 30_000 });
  const lock = await holdWriteLock(home);
  // The provider answers (the call is paid) while the database is locked.
  answer();
  // Held for two budgets, each measured by a refused write: the CLI has long reported its end
  // (it has nothing left to do but exit) and the attempt's end record has waited past the budget.
  await expectRefusedWrite(server.url);
  await expectRefusedWrite(server.url);
  await lock.release();

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 60_000 });
  const ask = events.filter((e) => e.step_name === 'ask' && e.event_type.startsWith('node_'));
  expect(ask.map((e) => e.event_type)).toEqual(['node_started', 'node_completed']);
  expect(run.status).toBe('completed');
  // The paid call's cost is in the run's totals, and it was paid once.
  expect(messages.requests).toHaveLength(1);
  expect(run.metadata.totals?.total_cost_usd).toBeCloseTo(PAID_ANSWER_USD, 9);
}, 120_000);
