import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt } from '../cli/cli-process.js';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { newRun } from '../store/fixtures.js';
import { openBrowser, type Browser } from './browser.js';

/**
 * What waits, and finding runs, as a person sees it on the dashboard: the runs page's codebase
 * and date filters, a run listed the moment it is queued (before any supervisor starts it), AI
 * nodes waiting in their provider's line and nodes waiting for a global slot, each with its place
 * in the graph. The real `cairn serve`
 * (one for the file, a global limit of three attempts and an `anthropic` limit of one), a local
 * Anthropic stand-in whose answers the test holds, Debian's Chromium.
 */

let home: TempHome;
let server: RunningServer;
let anthropic: AnthropicServer;
let browser: Browser;
const pageErrors: string[] = [];
/** Each held answer of the Anthropic stand-in, released by the test. */
const releases: (() => void)[] = [];

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  anthropic = await startAnthropicServer((req) =>
    // The `limited` workflow's prompt meets a plan's usage limit; every other answer is held.
    JSON.stringify(req.body.messages).includes('over-the-limit')
      ? { kind: 'error', status: 429, type: 'rate_limit_error', message: '5-hour limit reached ∙ resets 3am (UTC)' }
      : { kind: 'stream', blocks: [{ type: 'text', text: 'ok' }], heldUntil: new Promise<void>((resolve) => releases.push(resolve)) },
  );
  home.defer(() => anthropic.close());
  await writeFile(home.paths.config, 'concurrency:\n  providers:\n    anthropic: 1\n');
  await writeHomeWorkflow(
    home,
    'hold',
    `name: hold
description: three nodes that wait for the file the message names
nodes:
  - id: wait1
    bash: 'while [ ! -e "$ARGUMENTS" ]; do sleep 0.05; done; echo released'
  - id: wait2
    bash: 'while [ ! -e "$ARGUMENTS" ]; do sleep 0.05; done; echo released'
  - id: wait3
    bash: 'while [ ! -e "$ARGUMENTS" ]; do sleep 0.05; done; echo released'
`,
  );
  await writeHomeWorkflow(
    home,
    'hold-each',
    `name: hold-each
description: three nodes, each waiting for its own file, named after the message
nodes:
  - id: h0
    bash: 'while [ ! -e "$ARGUMENTS.h0" ]; do sleep 0.05; done; echo released'
  - id: h1
    bash: 'while [ ! -e "$ARGUMENTS.h1" ]; do sleep 0.05; done; echo released'
  - id: h2
    bash: 'while [ ! -e "$ARGUMENTS.h2" ]; do sleep 0.05; done; echo released'
`,
  );
  await writeHomeWorkflow(
    home,
    'three-asks',
    `name: three-asks
description: three AI nodes behind a provider limit of one
provider: anthropic
model: claude-sonnet-4-5
nodes:
  - id: a0
    prompt: first
  - id: a1
    prompt: second
  - id: a2
    prompt: third
`,
  );
  await writeHomeWorkflow(
    home,
    'limited',
    `name: limited
description: one AI node whose provider's usage limit is reached; the run resumes at its reset
provider: anthropic
model: claude-sonnet-4-5
auto_resume:
  on_quota: true
nodes:
  - id: ask
    prompt: over-the-limit
`,
  );
  server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '3', ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'sk-ant-test' });
  browser = await openBrowser(home);
});
afterAll(async () => {
  for (const release of releases) release();
  expect(pageErrors).toEqual([]);
  expect(browser?.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
  await home?.close();
});

async function open(path: string): Promise<Page> {
  const page = await browser.page();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}

async function ended(runId: string): Promise<string> {
  return waitFor(
    async () => {
      const status = (await getRun(server.url, runId)).run.status as string;
      return ['completed', 'failed', 'cancelled'].includes(status) ? status : undefined;
    },
    { what: `run ${runId} to end`, timeoutMs: 60_000 },
  );
}

it('filters the runs by codebase and by days, kept in the address, counted under the filters', async () => {
  // Runs written straight into the database on three days (the store's clock sets when each was
  // created), on two registered codebases; the page only reads them.
  const setup = home.openStore();
  for (const id of ['acme/widget', 'acme/gadget']) {
    await setup.registerCodebase({
      id, name: id, repository_url: null, default_cwd: home.home, default_branch: 'main',
      kind: 'repo', managed: false, env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
    });
  }
  const on = (iso: string) => home.openStore({ clock: () => Date.parse(iso) });
  const dated = (message: string, codebaseId: string) => newRun({ workflowName: 'dated', userMessage: message, codebaseId });
  await on('2026-01-10T12:00:00Z').createRun(dated('january widget', 'acme/widget'));
  await on('2026-02-15T12:00:00Z').createRun(dated('february gadget', 'acme/gadget'));
  await on('2026-02-20T12:00:00Z').createRun(dated('late february widget', 'acme/widget'));

  const page = await open('/?workflow=dated');
  const rows = page.locator('tr[data-run]');
  const messages = async () => (await rows.locator('td.clip').allTextContents()).filter((text, i) => i % 2 === 0);
  await expect.poll(messages).toEqual(['late february widget', 'february gadget', 'january widget']);

  await page.locator('select[name="codebase"]').selectOption('acme/widget');
  await expect.poll(() => new URL(page.url()).searchParams.get('codebase')).toBe('acme/widget');
  await expect.poll(messages).toEqual(['late february widget', 'january widget']);

  // From the 1st of February on: the day is included, in the browser's time zone.
  await page.locator('input[name="from"]').fill('2026-02-01');
  await expect.poll(() => new URL(page.url()).searchParams.get('from')).toBe('2026-02-01');
  await expect.poll(messages).toEqual(['late february widget']);
  await expect.poll(() => page.locator('[data-count-status="all"] .count').textContent()).toBe('1');

  // Any codebase, up to the 15th of February: that day is included too, the 20th is not.
  await page.locator('select[name="codebase"]').selectOption('');
  await page.locator('input[name="to"]').fill('2026-02-15');
  await expect.poll(messages).toEqual(['february gadget']);
  expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ workflow: 'dated', from: '2026-02-01', to: '2026-02-15' });

  // The address is the filter: reloaded, the same runs and the same fields.
  await page.reload();
  await expect.poll(messages).toEqual(['february gadget']);
  expect(await page.locator('input[name="from"]').inputValue()).toBe('2026-02-01');
  expect(await page.locator('input[name="to"]').inputValue()).toBe('2026-02-15');

  // Back undoes one filter change at a time: the `to` day, then the codebase.
  await page.goBack();
  await expect.poll(messages).toEqual(['late february widget', 'february gadget']);
  expect(await page.locator('input[name="to"]').inputValue()).toBe('');
  await page.goBack();
  await expect.poll(messages).toEqual(['late february widget']);
  expect(await page.locator('select[name="codebase"]').inputValue()).toBe('acme/widget');
  await page.goForward();
  await expect.poll(messages).toEqual(['late february widget', 'february gadget']);
  await page.close();
});

it('lists a run the moment it is queued, before a supervisor starts it, and while the global limit is full', async () => {
  // The global limit (three attempts) is taken by a run that holds its three nodes.
  const firstFlag = join(home.home, 'release-first');
  const first = await startRun(server.url, 'hold', { message: firstFlag });
  await waitFor(async () => ((await (await fetch(`${server.url}/api/health`)).json()) as { concurrency: { active: number } }).concurrency.active === 3, {
    what: 'the first run to take every slot',
  });
  const page = await open('/?workflow=hold');
  const row = (runId: string) => page.locator(`tr[data-run="${runId}"] [data-status]`);
  await expect.poll(() => row(first.runId).textContent()).toBe('running');

  // No supervisor takes the next run yet (its process is stopped): the run exists, pending, and
  // the page lists it at once, from the event written with it.
  const supervisor = await server.pid('supervisor');
  process.kill(supervisor, 'SIGSTOP');
  let second: { runId: string };
  try {
    second = await startRun(server.url, 'hold', { message: join(home.home, 'release-second') });
    await expect.poll(() => row(second.runId).textContent()).toBe('pending');
    await expect.poll(() => page.locator('[data-count-status="pending"] .count').textContent()).toBe('1');
  } finally {
    process.kill(supervisor, 'SIGCONT');
  }
  // The supervisor starts it; its nodes then wait for the slots the first run holds.
  await expect.poll(() => row(second.runId).textContent()).toBe('running');
  await writeFile(firstFlag, '');
  await writeFile(join(home.home, 'release-second'), '');
  expect(await ended(first.runId)).toBe('completed');
  expect(await ended(second.runId)).toBe('completed');
  await expect.poll(() => row(second.runId).textContent()).toBe('completed');
  await page.close();
});

it('shows AI nodes waiting for their provider with their place in line, moving up as the line moves', async () => {
  const { runId } = await startRun(server.url, 'three-asks');
  const page = await open(`/runs/${runId}`);
  const node = (id: string) => page.locator(`[data-node="${id}"]`);
  // One call is in flight; the two others wait at places 1 and 2 (which node is which is the engine's choice).
  const queued = async () =>
    (
      await Promise.all(
        ['a0', 'a1', 'a2'].map(async (id) => [id, await node(id).getAttribute('data-state'), await node(id).locator('.dag-state').textContent()] as const),
      )
    ).filter(([, state]) => state === 'queued');
  // The engine records each place as an event (an AI node's process takes a moment to start).
  await waitFor(async () => ((await getRun(server.url, runId)).events.filter((e) => e.event_type === 'provider_queued').length >= 2 ? true : undefined), {
    what: 'two nodes to wait in the provider’s line',
  });
  await expect.poll(async () => (await queued()).map(([, , text]) => text).sort()).toEqual(['queued #1', 'queued #2']);
  const second = (await queued()).find(([, , text]) => text === 'queued #2')![0];
  // The place and the provider are in the node's tooltip and panel.
  expect(await node(second).locator('title').textContent()).toBe(`${second}: queued — waiting for a slot of anthropic: #2 in line (limit 1)`);
  await node(second).click();
  await expect.poll(() => page.locator('.node-panel .note').textContent()).toBe('waiting for a slot of anthropic: #2 in line (limit 1)');

  // The call in flight ends: the first in line starts, the last moves up to place 1.
  await waitFor(() => (releases.length >= 1 ? true : undefined), { what: 'the first call to reach the stand-in' });
  releases[0]!();
  await waitFor(
    async () => ((await getRun(server.url, runId)).events.some((e) => e.event_type === 'provider_queued' && e.step_name === second && e.data.position === 1) ? true : undefined),
    { what: 'the last in line to move up' },
  );
  await expect.poll(() => node(second).locator('.dag-state').textContent()).toBe('queued #1');
  // Then every call is answered as it comes: the run ends, and no node is left queued.
  await waitFor(
    () => {
      for (const release of releases) release();
      return releases.length >= 3 ? true : undefined;
    },
    { what: 'all three calls to reach the stand-in' },
  );
  for (const release of releases) release();
  expect(await ended(runId)).toBe('completed');
  await expect.poll(async () => Promise.all(['a0', 'a1', 'a2'].map((id) => node(id).getAttribute('data-state')))).toEqual([
    'completed',
    'completed',
    'completed',
  ]);
  await page.close();
});

it('shows nodes waiting for a global slot with their place in line, moving up as slots free, and none left queued by a cancel', async () => {
  // Run A's three nodes take the three global slots; B's, then C's, wait in the one global line.
  const flag = (name: string) => join(home.home, `global-${name}`);
  const a = await startRun(server.url, 'hold-each', { message: flag('a') });
  await waitFor(async () => ((await (await fetch(`${server.url}/api/health`)).json()) as { concurrency: { active: number } }).concurrency.active === 3, {
    what: 'run A to take every global slot',
  });
  const queuedEvents = async (runId: string) => (await getRun(server.url, runId)).events.filter((e) => e.event_type === 'global_queued');
  const b = await startRun(server.url, 'hold-each', { message: flag('b') });
  await waitFor(async () => ((await queuedEvents(b.runId)).length === 3 ? true : undefined), { what: "run B's nodes to wait in the global line" });
  const c = await startRun(server.url, 'hold-each', { message: flag('c') });
  await waitFor(async () => ((await queuedEvents(c.runId)).length === 3 ? true : undefined), { what: "run C's nodes to wait behind them" });

  const ids = ['h0', 'h1', 'h2'];
  const shown = async (page: Page) =>
    Promise.all(ids.map(async (id) => [id, await page.locator(`[data-node="${id}"] .dag-state`).textContent()] as const));
  const texts = async (page: Page) => (await shown(page)).map(([, text]) => text).sort();
  const pageB = await open(`/runs/${b.runId}`);
  const pageC = await open(`/runs/${c.runId}`);
  // Which node is where in line is the engine's choice; the places are those of the line.
  await expect.poll(() => texts(pageB)).toEqual(['queued #1', 'queued #2', 'queued #3']);
  await expect.poll(() => texts(pageC)).toEqual(['queued #4', 'queued #5', 'queued #6']);

  // C is cancelled while its nodes wait: they leave the line unrun, and show no place any more.
  const cancel = await fetch(`${server.url}/api/workflows/runs/${c.runId}/cancel`, { method: 'POST' });
  expect(cancel.status).toBe(200);
  expect(await ended(c.runId)).toBe('cancelled');
  await expect.poll(() => texts(pageC)).toEqual(['waiting', 'waiting', 'waiting']);
  await pageC.close();

  // A's first node ends: B's head starts (and shows running), the two behind it move up.
  await writeFile(`${flag('a')}.h0`, '');
  await expect.poll(() => texts(pageB)).toEqual(['queued #1', 'queued #2', 'running']);
  const second = (await shown(pageB)).find(([, text]) => text === 'queued #2')![0];
  expect(await pageB.locator(`[data-node="${second}"] title`).textContent()).toBe(`${second}: queued — waiting for a global slot: #2 in line (limit 3)`);
  await pageB.locator(`[data-node="${second}"]`).click();
  await expect.poll(() => pageB.locator('.node-panel .note').textContent()).toBe('waiting for a global slot: #2 in line (limit 3)');
  await writeFile(`${flag('a')}.h1`, '');
  await expect.poll(() => texts(pageB)).toEqual(['queued #1', 'running', 'running']);
  await expect.poll(() => pageB.locator('.node-panel .note').textContent()).toBe('waiting for a global slot: #1 in line (limit 3)');

  // Every slot frees: B's nodes all start, and then complete; none is left with a place.
  await writeFile(`${flag('a')}.h2`, '');
  await expect.poll(() => texts(pageB)).toEqual(['running', 'running', 'running']);
  for (const id of ids) await writeFile(`${flag('b')}.${id}`, '');
  expect(await ended(a.runId)).toBe('completed');
  expect(await ended(b.runId)).toBe('completed');
  await expect.poll(() => texts(pageB)).toEqual(['completed', 'completed', 'completed']);
  await pageB.close();
});

it('says when a run failed on its provider’s usage limit resumes by itself; Resume goes on at once', async () => {
  const { runId } = await startRun(server.url, 'limited');
  expect(await ended(runId)).toBe('failed');
  const page = await open(`/runs/${runId}`);
  const note = page.locator('[data-auto-resume]');
  await expect.poll(() => note.textContent()).toMatch(/^Resumes by itself in [^,]+, once the usage limit of ask resets \(automatic resume 1 of 3\)/);
  const at = (await getRun(server.url, runId)).run.metadata.auto_resume.at as string;
  expect(await note.locator('time').getAttribute('datetime')).toBe(at);
  // Resume now: the node meets the limit again, and the run waits for its second automatic resume.
  await page.locator('button[data-action="resume"]').click();
  await expect.poll(() => note.textContent(), { timeout: 30_000 }).toMatch(/\(automatic resume 2 of 3\)/);
  const events = (await getRun(server.url, runId)).events as { event_type: string; data: { auto?: boolean } }[];
  expect(events.filter((e) => e.event_type === 'workflow_resumed').map((e) => e.data.auto ?? false)).toEqual([false]);
  await page.close();
});

it('resumes a failed run with its own copy of the workflow, or with the file as it is now when asked to', async () => {
  await writeHomeWorkflow(home, 'fixable', 'name: fixable\ndescription: fails until its file is fixed\nnodes:\n  - id: step\n    bash: \'echo broken; exit 1\'\n');
  const { runId } = await startRun(server.url, 'fixable');
  expect(await ended(runId)).toBe('failed');
  await writeHomeWorkflow(home, 'fixable', 'name: fixable\ndescription: fails until its file is fixed\nnodes:\n  - id: step\n    bash: \'echo fixed\'\n');
  const page = await open(`/runs/${runId}`);
  const reload = page.locator('input[name="resume-reload"]');
  // A plain resume runs the copy the run started with: the fix on disk does not reach it.
  expect(await reload.isChecked()).toBe(false);
  await page.locator('button[data-action="resume"]').click();
  const failures = async () => ((await getRun(server.url, runId)).events as { event_type: string }[]).filter((e) => e.event_type === 'workflow_failed').length;
  await waitFor(async () => (await failures()) === 2, { what: 'the resumed run to fail again' });
  expect(await ended(runId)).toBe('failed');
  // With the box ticked, it takes the file as it is now, and says so in the run's events.
  await expect.poll(() => reload.isVisible()).toBe(true);
  await reload.check();
  await page.locator('button[data-action="resume"]').click();
  // The run stays failed until the supervisor takes the resume up: wait for its second ending.
  const endings = async () =>
    ((await getRun(server.url, runId)).events as { event_type: string }[]).filter((e) => ['workflow_failed', 'workflow_completed'].includes(e.event_type)).length;
  await waitFor(async () => (await endings()) === 3, { what: 'the reloaded run to end' });
  expect(await ended(runId)).toBe('completed');
  const events = (await getRun(server.url, runId)).events as { event_type: string; step_name?: string; data: { node_output?: string } }[];
  expect(events.filter((e) => e.event_type === 'workflow_reloaded')).toHaveLength(1);
  expect(events.filter((e) => e.event_type === 'node_completed' && e.step_name === 'step').map((e) => e.data.node_output?.trim())).toEqual(['fixed']);
  await page.close();
});
