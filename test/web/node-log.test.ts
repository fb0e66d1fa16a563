import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { openBrowser, type Browser } from './browser.js';

/**
 * A node that printed 100,000 lines, in the run page's node panel: the panel shows the start at
 * once and reads the rest a chunk at a time as it is scrolled (or from the end, with End), never
 * the whole log in one request. The real `cairn serve` (one for the file), Debian's Chromium.
 */

const LINES = 100_000;
/** `line 000001` … `line 100000`, each 11 characters and a newline (the last one's is not kept with the output). */
const TOTAL_BYTES = LINES * 12 - 1;
const CHUNK = 64 * 1024;
const line = (n: number) => `line ${String(n).padStart(6, '0')}`;

let home: TempHome;
let server: RunningServer;
let browser: Browser;
let runId: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  await writeHomeWorkflow(home, 'chatty', `name: chatty\ndescription: prints ${LINES} lines\nnodes:\n  - id: print\n    bash: "seq -f 'line %06g' 1 ${LINES}"\n`);
  server = await startServer(home);
  browser = await openBrowser(home);
  ({ runId } = await startRun(server.url, 'chatty'));
  await waitFor(async () => ((await getRun(server.url, runId)).run.status === 'completed' ? true : undefined), { what: 'the run to complete' });
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  expect(browser?.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
  await home?.close();
});

/** The node's page, and every request it makes for a chunk of the stream. */
async function openNode(): Promise<{ page: Page; chunks: URL[] }> {
  const page = await browser.page();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  const chunks: URL[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (/\/logs\/\d+\/stdout$/.test(url.pathname)) chunks.push(url);
  });
  await page.goto(`${server.url}/runs/${runId}?node=print`);
  await page.locator('[data-stream="live"]').waitFor();
  return { page, chunks };
}

/** Every request asked for at most one chunk (a few thousand lines): never the whole log, nor most of it. */
function expectBounded(chunks: readonly URL[]): void {
  expect(CHUNK * 18).toBeLessThan(TOTAL_BYTES);
  for (const url of chunks) {
    const limit = Number(url.searchParams.get('limit'));
    expect(limit).toBeGreaterThan(0);
    expect(limit).toBeLessThanOrEqual(CHUNK);
  }
}

it('shows the start of a 100,000-line log at once and reaches the end by scrolling, a chunk per request', async () => {
  const { page, chunks } = await openNode();
  const log = page.locator('.paged-log[data-log-stream="stdout"]');
  const box = log.locator('.log-scroll');
  await expect.poll(async () => (await box.locator('pre').first().textContent())?.startsWith(`${line(1)}\n${line(2)}\n`)).toBe(true);
  // The first screen cost one request of one chunk.
  expect(chunks.map((url) => url.searchParams.get('offset'))).toEqual(['0']);
  expect(await log.locator('[data-log-loaded]').textContent()).toBe('64 KiB of 1.1 MiB read');

  // Scrolled to the bottom again and again, the panel reads on, chunk after chunk, until the last line.
  await waitFor(
    async () => {
      if ((await log.locator('[data-log-gap]').count()) === 0) return true;
      await box.evaluate((element) => (element.scrollTop = element.scrollHeight));
      return undefined;
    },
    { what: 'the whole log to be read by scrolling', timeoutMs: 60_000 },
  );
  const lines = (await box.locator('pre').allTextContents()).join('').split('\n').filter(Boolean);
  expect(lines).toHaveLength(LINES);
  expect(lines.at(-1)).toBe(line(LINES));
  expect(lines.every((l, i) => l === line(i + 1))).toBe(true);
  expect(await log.locator('[data-log-loaded]').textContent()).toBe('all 1.1 MiB');

  // Each request took the next chunk where the last ended: nothing read twice, never the whole log.
  expectBounded(chunks);
  expect(chunks).toHaveLength(Math.ceil(TOTAL_BYTES / CHUNK));
  expect(chunks.map((url) => Number(url.searchParams.get('offset')))).toEqual(chunks.map((_, i) => i * CHUNK));
  await page.close();
});

it('jumps to the end with End, whole lines from the first, and fills in the middle as it is scrolled to', async () => {
  const { page, chunks } = await openNode();
  const log = page.locator('.paged-log[data-log-stream="stdout"]');
  await expect.poll(() => log.locator('[data-log-loaded]').textContent()).toBe('64 KiB of 1.1 MiB read');
  await log.getByRole('button', { name: 'End' }).click();
  const tail = log.locator('[data-log-tail]');
  await expect.poll(async () => (await tail.textContent())?.endsWith(`\n${line(LINES)}`)).toBe(true);
  // The end was read from a whole line on, the last chunk only, and it is on screen.
  const last = chunks.at(-1)!;
  expect(last.searchParams.get('align')).toBe('line');
  expect(Number(last.searchParams.get('offset'))).toBe(TOTAL_BYTES - CHUNK);
  const firstShown = ((await tail.textContent()) ?? '').split('\n')[0]!;
  expect(firstShown).toMatch(/^line \d{6}$/);
  expect(await tail.evaluate((element) => {
    const box = element.parentElement!.getBoundingClientRect();
    return element.getBoundingClientRect().bottom <= box.bottom + 1 && element.getBoundingClientRect().bottom >= box.top;
  })).toBe(true);

  // The part between is read as it comes into view, until the log is whole and in order.
  await waitFor(
    async () => {
      // One step in the page: the marker may go (the two parts met) between two steps of the test.
      const gone = await page.evaluate(() => {
        const gap = (globalThis as unknown as { document: { querySelector(s: string): { scrollIntoView(): void } | null } }).document.querySelector('[data-log-gap]');
        gap?.scrollIntoView();
        return gap === null;
      });
      return gone ? true : undefined;
    },
    { what: 'the middle of the log to be read', timeoutMs: 60_000 },
  );
  const lines = (await log.locator('.log-scroll pre').allTextContents()).join('').split('\n').filter(Boolean);
  expect(lines).toHaveLength(LINES);
  expect(lines.every((l, i) => l === line(i + 1))).toBe(true);
  expectBounded(chunks);
  expect(chunks.length).toBeLessThanOrEqual(Math.ceil(TOTAL_BYTES / CHUNK) + 1);
  await page.close();
});

it('answers a chunk from the first whole line at or after the offset, and refuses another alignment', async () => {
  const { attempts } = (await (await fetch(`${server.url}/api/workflows/runs/${runId}/logs?node=print`)).json()) as { attempts: { seq: number }[] };
  const base = `${server.url}/api/workflows/runs/${runId}/logs/${attempts[0]!.seq}/stdout`;
  const aligned = (await (await fetch(`${base}?offset=5&limit=24&align=line`)).json()) as Record<string, unknown>;
  expect(aligned).toEqual({ text: `${line(2)}\n${line(3)}\n`, offset: 12, nextOffset: 36, totalBytes: TOTAL_BYTES });
  // An offset that is a line's start stays where it is.
  expect(((await (await fetch(`${base}?offset=12&limit=12&align=line`)).json()) as { offset: number }).offset).toBe(12);
  const refused = await fetch(`${base}?align=word`);
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toContain('align must be line');
});
