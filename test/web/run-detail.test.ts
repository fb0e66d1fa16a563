import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cloneLocally, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { assertBuilt } from '../cli/cli-process.js';
import { scriptedMessages, startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeFlakyItemWorkflow, writeHomeWorkflow } from '../helpers/workflows.js';
import { openBrowser, type Browser } from './browser.js';

/**
 * A run's page beyond its graph, as a person sees it in Debian's Chromium, against one real
 * `cairn serve`: an AI node (the real Claude Code CLI against a scripted Messages API) whose tool
 * calls appear while it works and whose hostile markdown runs nothing; tokens, cost and the
 * execution record of an attempt; the timeline with a retry; the diff of a run that committed on
 * its branch, per run and per attempt; artifacts, text shown as text and binary offered as a
 * download; a fan-out's grid and the retry of its failed items; parent and child run links.
 */

let home: TempHome;
let root: string;
let server: RunningServer;
let messages: AnthropicServer;
let browser: Browser;
let flags: string;
const consoleErrors: string[] = [];
const codebaseId = 'acme/widget';
/** The agent's answer after its first tool result waits for this (the node is mid-work until then). */
let releaseAgent!: () => void;
const agentReleased = new Promise<void>((resolve) => (releaseAgent = resolve));

/** What the agent finally says: markdown, with every way a text could try to run something. */
const HOSTILE = [
  'Done: **notes written**.',
  '',
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'img\'">',
  '[a harmless link](javascript:window.__pwned=\'link\')',
  '<a href="javascript:window.__pwned=\'raw\'">raw link</a>',
  '',
  '- item one',
  '- item two',
].join('\n');

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-run-detail-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  flags = join(root, 'flags');
  await mkdir(flags);
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget', { 'README.md': 'widget\n' }), 'widget');

  const scripted = scriptedMessages([
    { match: /WORK-TASK/, steps: [{ tool: 'write', path: 'notes.txt', content: 'from the agent\n' }, { tool: 'run', command: 'cat no-such-file.txt' }, { say: HOSTILE }] },
  ]);
  let held = false;
  messages = await startAnthropicServer((req, i) => {
    const reply = scripted.reply(req, i);
    const body = JSON.stringify(req.body?.messages ?? []);
    if (!held && body.includes('WORK-TASK') && body.includes('tool_result') && reply.kind === 'stream') {
      held = true;
      return { ...reply, heldUntil: agentReleased };
    }
    return reply;
  });
  home.defer(() => messages.close());

  await writeHomeWorkflow(home, 'agent', `name: agent
description: an agent that writes a file, runs a command that fails, and answers
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: work
    prompt: "WORK-TASK: write notes.txt and show another file"
`);
  await writeHomeWorkflow(home, 'change', `name: change
description: commits a change on the run's branch, writes artifacts, and a node that succeeds on its second attempt
nodes:
  - id: commit
    bash: 'printf "hello from the run\\n" > greet.txt && git add greet.txt && git commit -q -m "greet" && printf "# Report\\n<img src=x onerror=alert(1)>\\n" > "$ARTIFACTS_DIR/report.md" && printf "\\000\\001\\002" > "$ARTIFACTS_DIR/blob.bin"'
  - id: flaky
    depends_on: [commit]
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
    bash: 'test -e "$ARTIFACTS_DIR/.tried" || { touch "$ARTIFACTS_DIR/.tried"; exit 3; }; echo second time lucky'
`);
  await writeFlakyItemWorkflow(home, flags);
  await writeHomeWorkflow(home, 'fan', `name: fan
description: three items, one fails until fixed
nodes:
  - id: each
    workflow: flaky
    fan_out: { items: '["a","bad1","b"]', max_parallel: 3, join: all_done, mode: in_run }
`);
  await writeHomeWorkflow(home, 'wide', `name: wide
description: 250 items, paged in the grid
nodes:
  - id: list
    bash: 'echo "[$(seq -s, 0 249)]"'
  - id: each
    depends_on: [list]
    workflow: flaky
    fan_out: { items: "$list.output", max_parallel: 8, join: all_done, mode: in_run }
`);
  await writeHomeWorkflow(home, 'kid', 'name: kid\ndescription: the child\nnodes:\n  - id: hello\n    bash: echo from the kid\n');
  await writeHomeWorkflow(home, 'parent', 'name: parent\ndescription: runs kid as a child run\nnodes:\n  - id: call\n    workflow: kid\n');

  server = await startServer(home, {
    ...claudeCliEnv(messages.url, join(root, 'cli-home')),
    CLAUDE_BIN_PATH: pinnedClaudeCli,
    GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.com',
  });
  const added = await fetch(`${server.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }) });
  expect(added.status, await added.clone().text()).toBeLessThan(300);
  browser = await openBrowser(home);
});
afterAll(async () => {
  releaseAgent?.();
  await home?.close();
});

async function open(path: string): Promise<Page> {
  const page = await browser.page();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}

async function ended(runId: string): Promise<{ run: Record<string, any>; events: Record<string, any>[] }> {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status as string) ? detail : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 60_000 });
}

it('shows an agent\'s tool calls while it works, then its markdown answer, where hostile text runs nothing', async () => {
  const project = join(root, 'project');
  await mkdir(project);
  const res = await fetch(`${server.url}/api/workflows/agent/run?cwd=${encodeURIComponent(project)}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({}),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  const { runId } = (await res.json()) as { runId: string };
  const page = await open(`/runs/${runId}?node=work`);

  // The Write call and its result are on the page while the node still works (its next answer is held).
  const write = page.locator('.tool-call[data-tool="Write"]');
  await write.waitFor({ timeout: 45_000 });
  await expect.poll(() => write.locator('.tool-outcome').textContent()).toMatch(/^ok/);
  expect(await write.locator('.tool-summary').textContent()).toBe(join(project, 'notes.txt'));
  const { run: during, events: soFar } = await getRun(server.url, runId);
  expect(during.status).toBe('running');
  expect(soFar.some((e) => e.event_type === 'node_completed')).toBe(false);
  await write.locator('summary').click();
  expect(await write.locator('.tool-input').textContent()).toContain('from the agent');

  releaseAgent();
  // The failing command: its call, and its result shown as an error.
  const bash = page.locator('.tool-call[data-tool="Bash"]');
  await expect.poll(() => bash.locator('.tool-outcome').textContent(), { timeout: 45_000 }).toMatch(/^error/);
  expect(await bash.locator('.tool-summary').textContent()).toBe('cat no-such-file.txt');
  await bash.locator('summary').click();
  expect(await bash.locator('.tool-output').textContent()).toContain('no-such-file.txt');

  // The answer, as markdown: the bold text and the list are there, and nothing of the hostile parts.
  const answer = page.locator('.activity .agent-text', { hasText: 'notes written' });
  await answer.locator('strong').waitFor({ timeout: 45_000 });
  expect(await answer.locator('strong').textContent()).toBe('notes written');
  expect(await answer.locator('li').allTextContents()).toEqual(['item one', 'item two']);
  expect(await answer.locator('script, img, [onerror]').count()).toBe(0);
  for (const href of await answer.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))) {
    expect(href ?? '').not.toMatch(/^\s*javascript:/i);
  }
  // Clicking the links runs nothing either.
  for (const link of await answer.locator('a').all()) await link.click({ modifiers: [] }).catch(() => undefined);
  expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();

  // Tokens and cost of the attempt, from its record, and the run's totals.
  const { run, events } = await ended(runId);
  expect(run.status).toBe('completed');
  const record = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'work')!.data.execution;
  expect(record.spend.tokens.source).toBe('provider');
  const tokens = record.spend.tokens.value as { input: number; output: number };
  const attemptSpend = page.locator('.attempts .spend');
  await expect.poll(() => attemptSpend.textContent()).toContain(`${tokens.input.toLocaleString('en-US')} in · ${tokens.output.toLocaleString('en-US')} out`);
  await expect.poll(() => page.locator('.run-totals').textContent()).toContain(`${Number(run.metadata.total_tokens_in).toLocaleString('en-US')} in`);
  // The execution record of the attempt, whole.
  await page.locator('.attempts details.record summary').last().click();
  const shown = JSON.parse((await page.locator('.attempts details.record pre').last().textContent())!);
  expect(shown.attempt.id).toBe(record.attempt.id);
  expect(shown.lifecycle.status).toBe('completed');
  expect(consoleErrors).toEqual([]);
  await page.close();
});

it('shows the timeline of attempts with the retry, the run\'s diff against its base branch and one attempt\'s, and its artifacts', async () => {
  const { runId } = await startRun(server.url, 'change', { codebaseId });
  const { run } = await ended(runId);
  expect(run.status).toBe('completed');
  const page = await open(`/runs/${runId}`);

  // Timeline: commit once, flaky twice (the second a retry, after its back-off wait).
  await page.locator('.run-tabs a', { hasText: 'Timeline' }).click();
  const rows = page.locator('.timeline tbody tr');
  await expect.poll(() => rows.count()).toBe(3);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-timeline-path'), tr.className, tr.children[1]!.textContent]))).toEqual([
    ['commit', 'state-completed', 'first'],
    ['flaky', 'state-failed', 'first'],
    ['flaky', 'state-completed', 'retry 1'],
  ]);
  const retryWait = await rows.nth(2).locator('td').nth(2).textContent();
  expect(retryWait).toMatch(/^\d+(\.\d)? s$/);
  expect(Number.parseFloat(retryWait!)).toBeGreaterThanOrEqual(1);

  // Changes: the committed file, its added line coloured as added.
  await page.locator('.run-tabs a', { hasText: 'Changes' }).click();
  const file = page.locator('.diff-file[data-file="greet.txt"]');
  await file.waitFor();
  expect(await page.locator('.diff-files li').allTextContents()).toEqual(['greet.txt +1 −0']);
  expect(await file.locator('.diff-add').allTextContents()).toEqual(['+hello from the run']);
  expect(await page.locator('.diff-view').textContent()).toContain('against main');

  // One attempt's changes: the commit node's has the file, the flaky node's none.
  await page.goto(`${server.url}/runs/${runId}?node=commit`);
  await page.locator('.attempt-changes').first().click();
  await page.locator('.diff-file[data-file="greet.txt"]').waitFor();
  expect(new URL(page.url()).searchParams.get('attempt')).toBeTruthy();
  expect(await page.locator('.diff-view').textContent()).toContain('of commit');

  // Artifacts: text shown as text (its HTML inert), binary offered as a download.
  await page.locator('.run-tabs a', { hasText: 'Artifacts' }).click();
  expect(await page.locator('.artifact-name').allTextContents()).toEqual(['blob.bin', 'report.md']);
  await page.locator('.artifact-name', { hasText: 'report.md' }).click();
  await expect.poll(() => page.locator('.artifact-text').textContent()).toBe('# Report\n<img src=x onerror=alert(1)>\n');
  expect(await page.locator('.artifact-file img').count()).toBe(0);
  await page.locator('.artifact-name', { hasText: 'blob.bin' }).click();
  await expect.poll(() => page.locator('.artifact-file').textContent()).toContain('Not text');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.artifact-download').click()]);
  expect(download.suggestedFilename()).toBe('blob.bin');
  expect(consoleErrors).toEqual([]);
  await page.close();
});

it('says why a run without a worktree has no diff', async () => {
  const { runId } = await startRun(server.url, 'kid');
  await ended(runId);
  const page = await open(`/runs/${runId}?tab=changes`);
  await expect.poll(() => page.locator('.diff-unavailable').textContent()).toContain('has no worktree of its own');
  await page.close();
});

it('shows a fan-out\'s items with their states and retries the failed one from the grid', async () => {
  const { runId } = await startRun(server.url, 'fan');
  expect((await ended(runId)).run.status).toBe('completed');
  const page = await open(`/runs/${runId}?node=each`);
  const items = page.locator('.fan-out-item');
  await expect.poll(() => items.count()).toBe(3);
  expect(await items.evaluateAll((li) => li.map((l) => l.className))).toEqual(['fan-out-item item-completed', 'fan-out-item item-failed', 'fan-out-item item-completed']);
  expect(await page.locator('.fan-out-counts').textContent()).toBe('3 items2 completed1 failed');

  await writeFile(join(flags, 'fixed'), '');
  await page.locator('.fan-out-retry').click();
  await expect.poll(() => items.nth(1).getAttribute('class'), { timeout: 45_000 }).toBe('fan-out-item item-completed');
  await expect.poll(() => page.locator('.fan-out-retry').isDisabled()).toBe(true);
  expect(await page.locator('.fan-out').textContent()).toContain('No failed item to retry');
  await page.close();
});

it('pages through a fan-out of 250 items, 100 at a time', async () => {
  const { runId } = await startRun(server.url, 'wide');
  expect((await ended(runId)).run.status).toBe('completed');
  const page = await open(`/runs/${runId}?node=each`);
  const items = page.locator('.fan-out-item');
  await expect.poll(() => page.locator('.fan-out .pager').textContent()).toContain('items 1–100 of 250');
  expect(await items.count()).toBe(100);
  expect(await page.locator('.fan-out-counts').textContent()).toBe('250 items250 completed');
  await page.locator('.fan-out .pager button', { hasText: 'Next' }).click();
  await expect.poll(() => page.locator('.fan-out .pager').textContent()).toContain('items 101–200 of 250');
  expect(await items.first().getAttribute('data-item-index')).toBe('100');
  expect(await items.first().locator('.output').textContent()).toBe('done-100');
  await page.locator('.fan-out .pager button', { hasText: 'Next' }).click();
  await expect.poll(() => items.count()).toBe(50);
  expect(await page.locator('.fan-out .pager button', { hasText: 'Next' }).isDisabled()).toBe(true);
  await page.close();
});

it('links a parent run to its child run and back', async () => {
  const { runId } = await startRun(server.url, 'parent');
  expect((await ended(runId)).run.status).toBe('completed');
  const page = await open(`/runs/${runId}`);
  const child = page.locator('.run-links .child-link');
  await child.waitFor();
  await child.click();
  await expect.poll(() => page.locator('.run-head h2').textContent()).toContain('kid');
  const parent = page.locator('.run-links .parent-link');
  expect(await parent.textContent()).toBe(runId.slice(0, 12));
  await parent.click();
  await expect.poll(() => new URL(page.url()).pathname).toBe(`/runs/${runId}`);
  await page.close();
  // Every request any of these pages made (the lazily loaded markdown chunk included) went to the server itself.
  expect(browser.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
});
