import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt, startCli, userCliEnv } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { newRun } from '../store/fixtures.js';
import { openBrowser, type Browser } from './browser.js';
import { checkNarrowAndDark } from './page-checks.js';

/**
 * The dashboard as a person uses it: the real `cairn serve` (one for the whole file), real
 * workflows (bash nodes, an approval gate), Debian's Chromium looking at the page. What is
 * checked is what the page shows, and that the page talks to nobody but its own server.
 */

let home: TempHome;
let server: RunningServer;
let browser: Browser;
const consoleErrors: string[] = [];
/** Each request a dashboard tab made, with the origin of the page that made it. */
const pageRequests: { page: string; url: string }[] = [];
/** The name a reverse proxy reaches the server by (docs/dashboard.md), and one nobody allowed. */
const PROXY_NAME = 'cairn.test';
const OTHER_NAME = 'rebind.test';

/** A file the `hold` workflows wait for before their middle node ends. */
const release = (name: string) => join(home.home, `release-${name}`);

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  await writeHomeWorkflow(
    home,
    'hold',
    `name: hold
description: a node that waits for the file the message names, between two quick ones
nodes:
  - id: fetch
    bash: printf hello-from-fetch
  - id: build
    depends_on: [fetch]
    bash: 'while [ ! -e "$ARGUMENTS" ]; do sleep 0.05; done; echo built'
  - id: report
    depends_on: [build]
    bash: echo reported
`,
  );
  await writeHomeWorkflow(
    home,
    'gated',
    `name: gated
description: plan, a person approves, then the work
nodes:
  - id: plan
    bash: echo the plan
  - id: review
    depends_on: [plan]
    approval:
      message: "Ship the plan?"
      capture_response: true
  - id: work
    depends_on: [review]
    bash: 'sleep 0.3; printf "%s" "approved with: $review.output"'
`,
  );
  server = await startServer(home, { CAIRN_ALLOWED_HOSTS: PROXY_NAME });
  browser = await openBrowser(home, { hostRules: [PROXY_NAME, OTHER_NAME] });
});
afterAll(async () => {
  await home?.close();
});

async function open(path: string, base = server.url): Promise<Page> {
  const page = await browser.page();
  page.on('console', (message) => {
    // With the address it concerns: a failed load's own text does not name it.
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url || 'no address'})`);
  });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
  page.on('request', (request) => pageRequests.push({ page: new URL(base).origin, url: request.url() }));
  await page.goto(`${base}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}

/** Takes the console errors logged since `from`: each must be the browser's line for a refusal of `status` the test provoked. */
function expectRefusalsLogged(from: number, status: number): void {
  const logged = consoleErrors.splice(from);
  expect(logged.length).toBeGreaterThan(0);
  expect(logged.filter((text) => !text.includes(`the server responded with a status of ${status}`))).toEqual([]);
}

async function statusOf(runId: string): Promise<string> {
  return (await getRun(server.url, runId)).run.status as string;
}

it('serves the page and its hashed files with the right caching and CSP, and leaves /api to the API', async () => {
  const page = await fetch(`${server.url}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('cache-control')).toBe('no-cache');
  expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
  const html = await page.text();
  // No inline script: every script names a file, and the files are hashed.
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets).toHaveLength(3);
  for (const asset of assets) {
    expect(asset).toMatch(/^\/assets\/(main|styles|favicon)-[A-Z0-9]{8}\.(js|css|svg)$/);
    const res = await fetch(`${server.url}${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toMatch({ js: /^text\/javascript/, css: /^text\/css/, svg: /^image\/svg\+xml/ }[asset.split('.').pop()!]!);
  }

  // A client-side address (a reload on a run's page) is the page too.
  const deep = await fetch(`${server.url}/runs/some-run?node=build`);
  expect(deep.status).toBe(200);
  expect(await deep.text()).toBe(html);
  // The API is never shadowed: an unknown API path is the API's JSON 404, health is JSON.
  const unknown = await fetch(`${server.url}/api/no-such-route`);
  expect(unknown.status).toBe(404);
  expect(await unknown.json()).toMatchObject({ code: 'NOT_FOUND', error: 'Route not found: GET /api/no-such-route' });
  expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
  const missing = await fetch(`${server.url}/assets/main-NOTAFILE.js`);
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  // An address that is no page of the dashboard's is the API's 404 too.
  expect((await fetch(`${server.url}/no-such-page`)).status).toBe(404);
});

it('shows a run started from the CLI appearing live on the runs page, its status changing as it goes', async () => {
  const page = await open('/?workflow=hold');
  await expect.poll(() => page.locator('[data-count-status="all"] .count').textContent()).toBe('0');
  const before = browser.requests.filter((url) => url.includes('/api/dashboard/runs')).length;

  const flag = release('cli');
  const cli = startCli(['workflow', 'run', 'hold', '--message', flag, '--output', 'none', '--url', server.url], {
    env: userCliEnv(home.home),
    cwd: home.home,
  });
  const row = page.locator('tr[data-run]');
  await row.first().waitFor();
  const runId = (await row.first().getAttribute('data-run'))!;
  await expect.poll(() => row.locator('[data-status]').getAttribute('data-status')).toBe('running');
  await expect.poll(() => page.locator('[data-count-status="running"] .count').textContent()).toBe('1');

  await writeFile(flag, '');
  await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
  expect(await cli.exited).toBe(0);
  await expect.poll(() => page.locator('[data-count-status="completed"] .count').textContent()).toBe('1');
  expect(await statusOf(runId)).toBe('completed');

  // Event-driven, not polled: the page read the list once per run-status event it was sent, at most.
  const statusEvents = (await getRun(server.url, runId)).events.filter((e) => e.step_name === null).length;
  const reads = browser.requests.filter((url) => url.includes('/api/dashboard/runs')).length - before;
  expect(reads).toBeGreaterThan(0);
  expect(reads).toBeLessThanOrEqual(statusEvents);

  // The filters are in the address: another workflow's filter shows none of these runs.
  await page.locator('select[name="workflow"]').selectOption('gated');
  await expect.poll(() => page.url()).toContain('workflow=gated');
  await expect.poll(() => row.count()).toBe(0);
  await page.close();
});

it('pages through the runs, with the page in the address, by mouse and keyboard', async () => {
  // Sixty finished runs, written straight into the database as a supervisor would end them:
  // the list only reads them, and nothing has to run sixty times.
  const store = home.openStore();
  for (let i = 0; i < 60; i++) {
    const run = await store.createRun(newRun({ workflowName: 'bulk', userMessage: `bulk run ${i}` }));
    const owner = 'test-writer';
    const taken = await store.acquireRun({ runId: run.id, ownerId: owner, leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    if (taken) await store.transitionRun({ runId: run.id, ownerId: owner, status: 'completed', release: true, events: [] });
  }
  await waitFor(async () => (await store.listDashboardRuns({ workflowName: 'bulk', status: 'completed', limit: 1, offset: 0 })).total === 60, {
    what: 'the sixty runs to be completed',
  });
  const page = await open('/?workflow=bulk');
  const rows = page.locator('tr[data-run]');
  await expect.poll(() => page.locator('.pager span').textContent()).toBe('1–50 of 60');
  expect(await rows.count()).toBe(50);
  expect(await rows.first().textContent()).toContain('bulk run 59');
  expect(await page.locator('.pager a', { hasText: 'Newer' }).getAttribute('aria-disabled')).toBe('true');
  await page.locator('.pager a', { hasText: 'Older' }).click();
  await expect.poll(() => page.locator('.pager span').textContent()).toBe('51–60 of 60');
  expect(new URL(page.url()).searchParams.get('page')).toBe('2');
  expect(await rows.count()).toBe(10);
  expect(await rows.last().textContent()).toContain('bulk run 0');

  // `/` goes to the search; the text lands in the address and narrows the list.
  await page.keyboard.press('/');
  await page.keyboard.type('bulk run 42');
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('bulk run 42');
  await expect.poll(() => rows.count()).toBe(1);
  expect(new URL(page.url()).searchParams.get('page')).toBeNull();
  // Escape leaves the field; Enter opens the run under the cursor.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/runs\//);
  await expect.poll(() => page.locator('.run-head .message').textContent()).toBe('bulk run 42');
  // Back returns to the filtered list.
  await page.goBack();
  await expect.poll(() => rows.count()).toBe(1);
  await page.close();
});

it('draws the run’s graph and colours each node by its live state; the node panel shows its output', async () => {
  const flag = release('dag');
  const { runId } = await startRun(server.url, 'hold', { message: flag });
  const page = await open(`/runs/${runId}`);
  const node = (id: string) => page.locator(`[data-node="${id}"]`);
  await expect.poll(() => node('fetch').getAttribute('data-state')).toBe('completed');
  await expect.poll(() => node('build').getAttribute('data-state')).toBe('running');
  expect(await node('report').getAttribute('data-state')).toBe('waiting');
  // Actions the status does not allow are disabled, with the reason beside them.
  const approve = page.locator('button[data-action="approve"]');
  expect(await approve.isDisabled()).toBe(true);
  expect(await approve.getAttribute('title')).toBe('The run is running: only a run paused at a gate can be approved');
  expect(await page.locator('button[data-action="delete"]').isDisabled()).toBe(true);
  expect(await page.locator('button[data-action="cancel"]').isEnabled()).toBe(true);

  // At 1280×800 the page fits the window's width: nothing scrolls sideways.
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);

  await writeFile(flag, '');
  await expect.poll(() => node('report').getAttribute('data-state'), { timeout: 30_000 }).toBe('completed');
  expect(await node('build').getAttribute('data-state')).toBe('completed');
  await expect.poll(() => page.locator('.run-head [data-status]').getAttribute('data-status')).toBe('completed');
  await expect.poll(() => page.locator('button[data-action="delete"]').isEnabled()).toBe(true);
  expect(await page.locator('button[data-action="cancel"]').getAttribute('title')).toBe(
    'The run is completed: only a pending, running or paused run can be cancelled',
  );

  await node('fetch').click();
  await expect.poll(() => page.url()).toContain('node=fetch');
  const panel = page.locator('[data-panel-node="fetch"]');
  await expect.poll(() => panel.locator('.output').first().textContent()).toBe('hello-from-fetch');
  await expect.poll(() => panel.locator('.stdout').first().textContent()).toBe('hello-from-fetch');
  // j moves to the next node.
  await page.keyboard.press('j');
  await expect.poll(() => page.url()).toContain('node=build');

  // Delete asks first, then removes the run and goes back to the list.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('button[data-action="delete"]').click();
  await expect.poll(() => new URL(page.url()).pathname).toBe('/');
  expect((await fetch(`${server.url}/api/workflows/runs/${runId}`)).status).toBe(404);
  await page.close();
});

it('follows the system’s dark or light theme', async () => {
  const page = await open('/');
  const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background()).toBe('rgb(22, 24, 28)');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await background()).toBe('rgb(247, 247, 248)');
  await page.close();
});

it('approves a gate from the page: sampled every 50 ms, the page never shows the run or a node failed', async () => {
  const { runId } = await startRun(server.url, 'gated');
  const page = await open(`/runs/${runId}`);
  await page.locator('[data-gate="review"]').waitFor();
  expect(await page.locator('[data-node="review"]').getAttribute('data-state')).toBe('suspended');

  // What the page shows, every 50 ms, from before the click until the run completed.
  await page.evaluate(`window.__samples = []; window.__sampler = setInterval(() => {
    const shown = [...document.querySelectorAll('[data-status], [data-state]')].map((e) => e.getAttribute('data-status') ?? e.getAttribute('data-state'));
    window.__samples.push(shown.join(' '));
  }, 50);`);
  await page.locator('input[name="gate-text"]').fill('looks right');
  await page.locator('button[data-action="approve"]').click();
  await expect.poll(() => page.locator('.run-head [data-status]').getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
  await expect.poll(() => page.locator('[data-node="work"]').getAttribute('data-state')).toBe('completed');
  const samples = (await page.evaluate('clearInterval(window.__sampler), window.__samples')) as string[];

  // The work after the gate takes 0.3 s (its sleep), so the page is sampled while the run goes on.
  expect(samples.length).toBeGreaterThan(2);
  expect(samples.filter((s) => s.split(' ').includes('failed'))).toEqual([]);
  expect(samples[0]!.split(' ')).toContain('paused');
  expect(samples.at(-1)!.split(' ')).toContain('completed');
  const done = await getRun(server.url, runId);
  expect(done.events.find((e) => e.event_type === 'approval_received')?.data).toMatchObject({ decision: 'approved', comment: 'looks right' });
  expect(done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'work')?.data.node_output).toBe('approved with: looks right');
  await page.close();
});

it('lists every run waiting at a gate in the approvals inbox and answers them from the list', async () => {
  const first = await startRun(server.url, 'gated');
  const second = await startRun(server.url, 'gated');
  for (const { runId } of [first, second]) await waitFor(async () => (await statusOf(runId)) === 'paused', { what: `${runId} paused` });
  const page = await open('/approvals');
  const item = (runId: string) => page.locator(`[data-approval="${runId}"]`);
  await item(first.runId).waitFor();
  await item(second.runId).waitFor();
  expect(await item(first.runId).textContent()).toContain('Ship the plan?');

  // Keyboard: the cursor starts on the oldest; r rejects it (with no reason: the default one).
  await page.keyboard.press('r');
  await waitFor(async () => (await statusOf(first.runId)) === 'cancelled', { what: 'the rejected run to end cancelled' });
  await item(first.runId).waitFor({ state: 'detached' });

  await item(second.runId).locator('input[name="gate-text"]').fill('go');
  await item(second.runId).locator('button[data-action="approve"]').click();
  await waitFor(async () => (await statusOf(second.runId)) === 'completed', { what: 'the approved run to complete' });
  await item(second.runId).waitFor({ state: 'detached' });
  await page.getByText('No run is waiting at a gate.').waitFor();
  await page.close();
});

it('cancels, resumes and deletes several runs at once, each action disabled with the reason when no selected run allows it', async () => {
  await writeHomeWorkflow(home, 'sel-ok', 'name: sel-ok\ndescription: ends at once\nnodes:\n  - id: a\n    bash: echo ok\n');
  await writeHomeWorkflow(home, 'sel-fail', 'name: sel-fail\ndescription: fails\nnodes:\n  - id: a\n    bash: exit 3\n');
  const held = await startRun(server.url, 'hold', { message: release('selection') });
  const failed = await startRun(server.url, 'sel-fail', { message: 'selection' });
  const done = await startRun(server.url, 'sel-ok', { message: 'selection' });
  await waitFor(async () => (await statusOf(held.runId)) === 'running' && (await statusOf(failed.runId)) === 'failed' && (await statusOf(done.runId)) === 'completed', {
    what: 'a running, a failed and a completed run',
  });
  const page = await open('/?q=selection');
  const row = (runId: string) => page.locator(`tr[data-run="${runId}"]`);
  for (const { runId } of [held, failed, done]) await row(runId).waitFor();
  await expect.poll(() => page.locator('tr[data-run]').count()).toBe(3);
  const button = (action: string) => page.locator(`button[data-bulk="${action}"]`);
  for (const action of ['cancel', 'resume', 'delete']) expect(await button(action).isDisabled()).toBe(true);

  // The completed run alone: only Delete; the others say why not.
  await row(done.runId).locator('input[name="select"]').check();
  expect(await button('cancel').isDisabled()).toBe(true);
  expect(await page.locator('[data-bulk-why="cancel"]').textContent()).toBe(
    'No selected run can be cancelled (completed): only a pending, running or paused run can be cancelled',
  );
  expect(await page.locator('[data-bulk-why="resume"]').textContent()).toBe('No selected run can be resumed (completed): only a failed or paused run can be resumed');
  expect(await button('delete').isEnabled()).toBe(true);

  // Every run on the page (the box in the header), then Cancel: the running one is, the others are skipped, each said.
  await page.locator('input[name="select-all"]').check();
  expect(await page.locator('[data-selected-count]').getAttribute('data-selected-count')).toBe('3');
  expect(await button('cancel').textContent()).toBe('Cancel 1 of 3');
  await button('cancel').click();
  const result = (runId: string) => page.locator(`[data-bulk-result="${runId}"]`);
  await page.locator('[data-bulk-results="cancel"]').waitFor();
  expect(await result(held.runId).getAttribute('class')).toBe('result ok');
  expect(await result(failed.runId).textContent()).toMatch(/skipped: The run is failed: only a pending, running or paused run can be cancelled$/);
  expect(await result(done.runId).textContent()).toMatch(/skipped: The run is completed: only/);
  await waitFor(async () => (await statusOf(held.runId)) === 'cancelled', { what: 'the held run cancelled' });
  // The selection is cleared once done.
  expect(await page.locator('[data-selected-count]').getAttribute('data-selected-count')).toBe('0');

  // By keyboard: x ticks the run under the cursor. Resume the failed one: it fails again, as it must.
  await expect.poll(() => row(failed.runId).locator('td').nth(1).textContent()).toBe('failed');
  const index = Number(await row(failed.runId).getAttribute('data-row'));
  for (let i = 0; i < index; i++) await page.keyboard.press('j');
  await page.keyboard.press('x');
  expect(await row(failed.runId).locator('input[name="select"]').isChecked()).toBe(true);
  await button('resume').click();
  await page.locator('[data-bulk-results="resume"]').waitFor();
  expect(await result(failed.runId).getAttribute('class')).toBe('result ok');
  await waitFor(async () => (await statusOf(failed.runId)) === 'failed' && (await getRun(server.url, failed.runId)).events.filter((e) => e.event_type === 'node_failed').length === 2, {
    what: 'the resumed run to fail again',
  });

  // Delete all three (asked first): each is gone.
  await expect.poll(() => row(failed.runId).locator('td').nth(1).textContent()).toBe('failed');
  await page.locator('input[name="select-all"]').check();
  page.once('dialog', (dialog) => void dialog.accept());
  await button('delete').click();
  await page.locator('[data-bulk-results="delete"]').waitFor();
  for (const { runId } of [held, failed, done]) {
    expect(await result(runId).getAttribute('class')).toBe('result ok');
    expect((await fetch(`${server.url}/api/workflows/runs/${runId}`)).status).toBe(404);
  }
  await page.getByText('No run matches.').waitFor();
  await page.close();
  // The next test counts attempts in flight: wait until the cancelled run's node is gone.
  await waitFor(async () => ((await (await fetch(`${server.url}/api/health`)).json()) as { concurrency: { active: number } }).concurrency.active === 0, {
    what: 'no node attempt in flight',
  });
});

it('lists a user schedule with its next due time, runs it now with a link to the run, pauses, resumes and removes it', async () => {
  await writeHomeWorkflow(home, 'tick', 'name: tick\ndescription: ends at once\nnodes:\n  - id: a\n    bash: echo tick\n');
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/schedules${path}`, {
      method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { paused: boolean; next_fire_times: string[] } };
  };
  // Once a day, so that no due time comes during the test: every fire seen is the run-now.
  const made = await api('POST', '', { name: 'daily-tick', workflow: 'tick', cron: '0 3 * * *', timezone: 'Europe/Berlin' });
  expect(made.status).toBe(201);

  const page = await open('/schedules');
  expect(await page.locator('nav a[href="/schedules"]').getAttribute('aria-current')).toBe('page');
  const item = page.locator('[data-schedule="daily-tick"]');
  await item.waitFor();
  const text = await item.textContent();
  for (const part of ['tick', '0 3 * * *', 'Europe/Berlin', 'added by a user', 'No fire yet.']) expect(text).toContain(part);
  expect(await item.locator('time.next-due').getAttribute('datetime')).toBe(made.body.next_fire_times[0]);
  await checkNarrowAndDark(page);

  await item.locator('button[data-action="run-now"]').click();
  const link = item.locator('[data-fire="started"] a[href^="/runs/"]');
  await link.waitFor();
  const runId = (await link.getAttribute('href'))!.slice('/runs/'.length);
  await waitFor(async () => (await statusOf(runId)) === 'completed', { what: 'the run-now run to complete' });

  await item.locator('button[data-action="pause"]').click();
  await waitFor(async () => (await api('GET', '/daily-tick')).body.paused, { what: 'the schedule paused' });
  await item.locator('[data-paused]').waitFor();
  expect(await item.locator('time.next-due').count()).toBe(0);
  await item.locator('button[data-action="resume"]').click();
  await waitFor(async () => !(await api('GET', '/daily-tick')).body.paused, { what: 'the schedule resumed' });
  await item.locator('time.next-due').waitFor();

  page.once('dialog', (dialog) => void dialog.accept());
  await item.locator('button[data-action="remove"]').click();
  await item.waitFor({ state: 'detached' });
  expect((await api('GET', '/daily-tick')).status).toBe(404);
  await page.close();
});

it('adds a schedule from the form, with the inputs its workflow declares, and shows the server’s refusal of a bad cron beside it', async () => {
  await writeHomeWorkflow(
    home,
    'greet',
    'name: greet\ndescription: says hello\ninputs:\n  who: { required: true, description: whom to greet }\n  mood: { default: calm }\nnodes:\n  - id: a\n    bash: echo hello\n',
  );
  const page = await open('/schedules');
  const form = page.locator('form.schedule-form');
  // The zone is the browser's own until another is typed.
  expect(await form.locator('input[name="timezone"]').inputValue()).toBe(await page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone'));
  await form.locator('input[name="name"]').fill('weekly-greet');
  await form.locator('select[name="workflow"]').selectOption('greet');
  await form.locator('[data-input="who"] .required').waitFor();
  expect(await form.locator('input[name="input-mood"]').getAttribute('placeholder')).toBe('default: calm');
  await form.locator('input[name="input-who"]').fill('<b>world</b>');
  await form.locator('input[name="timezone"]').fill('Asia/Tokyo');
  await form.locator('select[name="overlap"]').selectOption('buffer_one');

  // A cron the server cannot read: its own words, and what was typed stays.
  const refused = await fetch(`${server.url}/api/schedules`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'probe', workflow: 'greet', cron: '61 * * * *', inputs: { who: 'x' } }),
  });
  expect(refused.status).toBe(400);
  const message = ((await refused.json()) as { error: string }).error;
  await form.locator('input[name="cron"]').fill('61 * * * *');
  // Before anything is sent, the form shows why the server cannot use what is typed, in its words.
  await expect.poll(() => form.locator('[data-schedule-preview-problem]').textContent()).toBe(message);
  const errorsBefore = consoleErrors.length;
  await form.locator('button[data-action="add-schedule"]').click();
  await expect.poll(() => form.locator('[data-schedule-error]').textContent()).toBe(message);
  expectRefusalsLogged(errorsBefore, 400);
  expect(await form.locator('input[name="cron"]').inputValue()).toBe('61 * * * *');
  expect(await form.locator('input[name="name"]').inputValue()).toBe('weekly-greet');
  expect(await form.locator('input[name="input-who"]').inputValue()).toBe('<b>world</b>');

  // Mondays at 09:30 in Tokyo: no due time comes during the test.
  await form.locator('input[name="cron"]').fill('30 9 * * 1');
  // As typed, the next five due times it gives, as the server reads them.
  const preview = (await (await fetch(`${server.url}/api/schedules/preview`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cron: '30 9 * * 1', timezone: 'Asia/Tokyo' }),
  })).json()) as { next_fire_times: string[] };
  expect(preview.next_fire_times).toHaveLength(5);
  await expect
    .poll(() => form.locator('[data-schedule-preview] time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime'))))
    .toEqual(preview.next_fire_times);
  expect(await form.locator('[data-schedule-preview-problem]').count()).toBe(0);
  await form.locator('button[data-action="add-schedule"]').click();
  const item = page.locator('[data-schedule="weekly-greet"]');
  await item.waitFor();
  const made = (await (await fetch(`${server.url}/api/schedules/weekly-greet`)).json()) as { next_fire_times: string[]; inputs: Record<string, string>; overlap: string; timezone: string };
  expect(made).toMatchObject({ inputs: { who: '<b>world</b>' }, overlap: 'buffer_one', timezone: 'Asia/Tokyo' });
  expect(await item.locator('time.next-due').getAttribute('datetime')).toBe(made.next_fire_times[0]);
  expect(await item.textContent()).toContain('(Asia/Tokyo) · overlap buffer_one');
  // The form says when the new schedule is due, its next five times.
  const created = form.locator('[data-schedule-created="weekly-greet"]');
  expect(await created.locator('time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime')))).toEqual(made.next_fire_times);
  expect(await form.locator('[data-schedule-error]').count()).toBe(0);
  await checkNarrowAndDark(page);
  expect((await fetch(`${server.url}/api/schedules/weekly-greet`, { method: 'DELETE' })).status).toBe(200);
  await page.close();
});

it('adds a webhook from the page, lists it with its input mapping, and a signed delivery from a CI system appears live with a link to its run', async () => {
  await writeHomeWorkflow(
    home,
    'ci-report',
    'name: ci-report\ndescription: a CI build\ninputs:\n  sha: { required: true }\n  status: { default: unknown }\nnodes:\n  - id: a\n    bash: echo reported\n',
  );
  const page = await open('/hooks');
  expect(await page.locator('nav a[href="/hooks"]').getAttribute('aria-current')).toBe('page');
  // Made from the page: the secret goes into a password field, and a refusal keeps what was typed.
  const form = page.locator('form.hook-form');
  await form.locator('input[name="name"]').fill('ci-build');
  await form.locator('select[name="workflow"]').selectOption('ci-report');
  await form.locator('[data-mapping-input="sha"] .required').waitFor();
  await form.locator('input[name="path-sha"]').fill('$.commit.sha');
  await form.locator('input[name="path-status"]').fill('$.build.status');
  expect(await form.locator('input[name="secret"]').getAttribute('type')).toBe('password');
  await form.locator('input[name="secret"]').fill('too-short');
  const errorsBefore = consoleErrors.length;
  await form.locator('button[data-action="add-hook"]').click();
  await expect.poll(() => form.locator('[data-hook-error]').textContent()).toContain('secret: at least 16 characters');
  expectRefusalsLogged(errorsBefore, 400);
  expect(await form.locator('input[name="path-sha"]').inputValue()).toBe('$.commit.sha');
  const secret = 'ci-secret-of-32-characters-00000';
  await form.locator('input[name="secret"]').fill(secret);
  await form.locator('button[data-action="add-hook"]').click();
  await form.locator('[data-hook-created="ci-build"]').waitFor();
  expect(await form.locator('input[name="secret"]').inputValue()).toBe('');
  expect(await page.locator('body').textContent()).not.toContain(secret);
  expect((await (await fetch(`${server.url}/api/hooks/ci-build`)).json()) as unknown).toMatchObject({
    workflow_name: 'ci-report', signature: 'generic', inputs: { sha: '$.commit.sha', status: '$.build.status' },
  });

  const item = page.locator('[data-hook="ci-build"]');
  await item.locator('text=No delivery yet.').waitFor();
  const text = (await item.textContent())!;
  for (const part of ['ci-report', 'generic signature', 'POST /api/hooks/ci-build', 'sha ← $.commit.sha', 'status ← $.build.status']) expect(text).toContain(part);
  expect(text).not.toContain(secret);
  await checkNarrowAndDark(page);

  // The CI system signs `<timestamp>.<body>` with the secret; a delivery id of its own making is shown as text.
  const body = JSON.stringify({ commit: { sha: '9f2c1e0' }, build: { status: 'passed' } });
  const stamp = String(Math.floor(Date.now() / 1000));
  const signature = `sha256=${createHmac('sha256', secret).update(`${stamp}.${body}`).digest('hex')}`;
  const deliveryId = '<b>build-1234</b>';
  const sent = await fetch(`${server.url}/api/hooks/ci-build`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cairn-timestamp': stamp, 'x-cairn-signature': signature, 'x-cairn-delivery': deliveryId },
    body,
  });
  expect(sent.status).toBe(202);
  const { runId } = (await sent.json()) as { runId: string };

  const delivery = item.locator('.deliveries li').first();
  await delivery.waitFor();
  expect(await delivery.locator('.delivery-id').textContent()).toBe(deliveryId);
  expect(await delivery.locator('b').count()).toBe(0);
  expect(await delivery.locator('a').getAttribute('href')).toBe(`/runs/${runId}`);
  expect(await delivery.textContent()).toContain('received');
  await waitFor(async () => (await statusOf(runId)) === 'completed', { what: 'the delivered run to complete' });
  await delivery.locator('a').click();
  await page.waitForURL(`${server.url}/runs/${runId}`);

  await page.goto(`${server.url}/hooks`);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('[data-hook="ci-build"] button[data-action="remove"]').click();
  await page.locator('[data-hook="ci-build"]').waitFor({ state: 'detached' });
  expect((await fetch(`${server.url}/api/hooks/ci-build`)).status).toBe(404);
  await page.close();
});

it('shows a GitHub hook’s settings, never its token, and a delivery it ignored with the reason instead of a run', async () => {
  await writeHomeWorkflow(home, 'gh-triage', 'name: gh-triage\ndescription: t\nnodes:\n  - id: a\n    bash: "true"\n');
  const token = 'github_pat_never_on_the_page';
  const secret = 'gh-secret-of-32-characters-00000';
  const made = await fetch(`${server.url}/api/hooks`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'gh-issues', workflow: 'gh-triage', signature: 'github', secret, github: { token, labels: ['cairn'], apiUrl: 'http://127.0.0.1:9' } }),
  });
  expect(made.status).toBe(201);
  // A ping asks nothing of GitHub: it is acknowledged and kept with its reason.
  const body = JSON.stringify({ zen: 'Keep it logically awesome.' });
  const ping = await fetch(`${server.url}/api/hooks/gh-issues`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'ping-1',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  expect(ping.status).toBe(200);
  const page = await open('/hooks');
  const item = page.locator('[data-hook="gh-issues"]');
  expect(await item.locator('[data-github]').textContent()).toBe('GitHub: /cairn run gh-triage · labels cairn · one reply to people without write access');
  const delivery = item.locator('.deliveries li').first();
  await delivery.waitFor();
  expect(await delivery.textContent()).toContain('ignored: ping: GitHub checking the hook');
  expect(await delivery.locator('a').count()).toBe(0);
  expect(await page.content()).not.toContain(token);
  await fetch(`${server.url}/api/hooks/gh-issues`, { method: 'DELETE' });
  await page.close();
});

it('shows the supervisor and the live concurrency on the health page', async () => {
  const page = await open('/status');
  await expect.poll(() => page.locator('[data-card="supervisor"] .big').textContent()).toBe('up');
  const flag = release('health');
  const { runId } = await startRun(server.url, 'hold', { message: flag });
  // Both figures from one read: the supervisor's active count comes with its heartbeat, so right after
  // an earlier test's run it can still say 1 while no run is running yet.
  const figures = async () =>
    `${await page.locator('[data-figure="active"]').textContent()} active, ${await page.locator('[data-figure="running"]').textContent()} running`;
  await expect.poll(figures, { timeout: 30_000 }).toBe('1 active, 1 running');
  await writeFile(flag, '');
  await waitFor(async () => (await statusOf(runId)) === 'completed', { what: 'the run to complete' });
  await expect.poll(figures, { timeout: 30_000 }).toBe('0 active, 0 running');
  await page.close();
});

it('refuses a page of another origin: it can neither answer a gate nor read a run, while the dashboard’s own requests pass', async () => {
  const { runId } = await startRun(server.url, 'gated');
  await waitFor(async () => (await statusOf(runId)) === 'paused', { what: 'the run to pause at its gate' });
  // Another site, served from another origin, that tries the simple requests no preflight guards.
  const evil: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><script>
      const api = ${JSON.stringify(server.url)};
      window.results = {};
      const approve = fetch(api + '/api/workflows/runs/${runId}/approve', { method: 'POST', mode: 'no-cors', body: '{}' })
        .then(() => 'sent', (e) => 'blocked: ' + e);
      const cancel = fetch(api + '/api/workflows/runs/${runId}/cancel', { method: 'POST', mode: 'no-cors' })
        .then(() => 'sent', (e) => 'blocked: ' + e);
      const json = fetch(api + '/api/workflows/runs/${runId}/approve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
        .then((r) => 'answered ' + r.status, (e) => 'blocked: ' + e);
      const read = fetch(api + '/api/workflows/runs/${runId}').then((r) => r.text(), (e) => 'blocked: ' + e);
      Promise.all([approve, cancel, json, read]).then(([a, c, j, r]) => { window.results = { a, c, j, r }; document.title = 'done'; });
    </script>`);
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  home.defer(() => {
    evil.closeAllConnections();
    return new Promise((resolve) => evil.close(resolve));
  });
  const port = (evil.address() as { port: number }).port;
  const page = await browser.page();
  await page.goto(`http://localhost:${port}/`);
  await expect.poll(() => page.title()).toBe('done');
  const results = (await page.evaluate('window.results')) as Record<string, string>;
  // The opaque (no-cors) writes reach the server and are refused there; the JSON one never leaves
  // the browser (its preflight gets no CORS answer); the read's answer is never handed over.
  expect(results.j).toMatch(/^blocked/);
  expect(results.r).toMatch(/^blocked/);
  const after = await getRun(server.url, runId);
  expect(after.run.status).toBe('paused');
  expect(after.run.metadata.approval.resolved).toBeUndefined();
  expect(server.output()).toContain('api.cross_origin_refused');
  await page.close();

  // The dashboard itself, at its own origin, answers the same gate.
  const own = await open(`/runs/${runId}`);
  await own.locator('button[data-action="reject"]').click();
  await waitFor(async () => (await statusOf(runId)) === 'cancelled', { what: 'the run rejected from its own page' });
  await own.close();
});

it('rides out an API restart: the page reconnects with Last-Event-ID and shows what happened meanwhile', async () => {
  const page = await open('/?workflow=hold');
  const resumes: Promise<string | undefined>[] = [];
  page.on('request', (request) => {
    if (!request.url().includes('/api/stream/__dashboard__')) return;
    const query = new URL(request.url()).searchParams.get('lastEventId') ?? undefined;
    resumes.push(request.allHeaders().then((headers) => headers['last-event-id'] ?? query));
  });
  const flag = release('restart');
  const { runId } = await startRun(server.url, 'hold', { message: flag });
  const row = page.locator(`tr[data-run="${runId}"]`);
  await expect.poll(() => row.locator('[data-status]').getAttribute('data-status')).toBe('running');
  await expect.poll(() => row.textContent()).toContain('build (running)');
  // It heard the run start on the stream (the frame that made the row appear and run).
  const started = (await getRun(server.url, runId)).events.find((e) => e.event_type === 'workflow_started')!.seq as number;
  const errorsBefore = consoleErrors.length;

  // The API dies (the launcher starts it again); the run goes on meanwhile.
  const apiPid = await server.pid('api');
  process.kill(apiPid, 'SIGKILL');
  await page.locator('[data-stream="reconnecting"]').waitFor();
  await writeFile(flag, '');
  await waitFor(async () => (await server.pid('api').catch(() => apiPid)) !== apiPid && (await fetch(`${server.url}/health`).then((r) => r.ok, () => false)), {
    what: 'the API to come back',
  });
  await page.locator('[data-stream="live"]').waitFor({ timeout: 30_000 });
  await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
  // The stream was opened again from where it stopped, not from scratch.
  const resumedFrom = (await Promise.all(resumes)).filter((id) => id !== undefined).map(Number);
  expect(resumedFrom.length).toBeGreaterThan(0);
  expect(resumedFrom[0]).toBeGreaterThanOrEqual(started);
  // The broken stream is the only thing the browser complained about.
  const complaints = consoleErrors.splice(errorsBefore);
  expect(complaints.filter((text) => !/net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED|EMPTY_RESPONSE|CONNECTION_RESET)/.test(text))).toEqual([]);
  await page.close();
});

it('works behind a reverse proxy reached by a name in CAIRN_ALLOWED_HOSTS, and a name not allowed is refused', async () => {
  // A plain proxy that keeps the Host header, as docs/dashboard.md asks of one.
  const target = new URL(server.url);
  const proxy: Server = createServer((req, res) => {
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  home.defer(() => {
    proxy.closeAllConnections();
    return new Promise((resolve) => proxy.close(resolve));
  });
  const port = (proxy.address() as { port: number }).port;

  const { runId } = await startRun(server.url, 'gated');
  await waitFor(async () => (await statusOf(runId)) === 'paused', { what: 'the run to pause at its gate' });
  const page = await open(`/runs/${runId}`, `http://${PROXY_NAME}:${port}`);
  await page.locator('[data-gate="review"]').waitFor();
  await page.locator('input[name="gate-text"]').fill('via the proxy');
  await page.locator('button[data-action="approve"]').click();
  await expect.poll(() => page.locator('.run-head [data-status]').getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
  const done = await getRun(server.url, runId);
  expect(done.events.find((e) => e.event_type === 'approval_received')?.data).toMatchObject({ decision: 'approved', comment: 'via the proxy' });
  await page.close();

  const other = await browser.page();
  const refused = await other.goto(`http://${OTHER_NAME}:${port}/`);
  expect(refused?.status()).toBe(421);
  expect(await other.textContent('body')).toContain('HOST_NOT_ALLOWED');
  await other.close();
});

it('made every request to its own origin, and broke no rule of its CSP', () => {
  expect(pageRequests.length).toBeGreaterThan(20);
  expect(pageRequests.filter((r) => new URL(r.url).origin !== r.page)).toEqual([]);
  expect(consoleErrors).toEqual([]);
});
