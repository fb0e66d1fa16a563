import { existsSync } from 'node:fs';
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cloneLocally, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { assertBuilt } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { openBrowser, type Browser } from './browser.js';
import { checkNarrowAndDark } from './page-checks.js';

/**
 * The dashboard's codebases page as a person uses it: the real `cairn serve` (one for the file),
 * real git repositories (bare file:// remotes and a user's clone), a real run making a worktree,
 * Debian's Chromium looking at the page.
 */

let home: TempHome;
let server: RunningServer;
let browser: Browser;
let root: string;
let widgetClone: string;
let gadgetUrl: string;
const pageErrors: string[] = [];
/** A secret's value in a committed .env: the page may show its key's name, never this. */
const SECRET_VALUE = 'sk_live_NEVER_SHOWN_4242';

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(home.home, 'repos-')));
  widgetClone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget', { 'README.md': 'hi\n', '.env': `STRIPE_SECRET_KEY=${SECRET_VALUE}\nPORT=3000\n` }), 'widget');
  gadgetUrl = makeBareRemote(root, 'acme', 'gadget');
  await writeHomeWorkflow(
    home,
    'hold',
    `name: hold\ndescription: waits for a file\nnodes:\n  - id: hold\n    bash: "while [ ! -e '${join(root, 'go')}' ]; do sleep 0.05; done; echo held"\n`,
  );
  server = await startServer(home);
  browser = await openBrowser(home);
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  expect(browser?.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
  await home?.close();
});

async function open(path: string): Promise<Page> {
  const page = await browser.page();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
  // Every answer the page reads, to check none holds the secret's value.
  page.on('response', (response) => void response.text().then((body) => bodies.push(body), () => undefined));
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}
const bodies: string[] = [];

async function codebase(id: string): Promise<Record<string, any>> {
  return (await fetch(`${server.url}/api/codebases/${id}`)).json() as Promise<Record<string, any>>;
}

it('registers a local clone, shows what its .env scan found and asks for consent: declined, asked again and allowed, then revoked', async () => {
  const page = await open('/codebases');
  await page.locator('text=No codebase is registered').waitFor();

  // A refusal is shown as the server says it.
  await page.locator('input[name="location"]').fill('relative/path');
  await page.locator('[data-action="register"]').click();
  expect(await page.locator('[data-register-error]').textContent()).toMatch(/^Cannot register 'relative\/path': /);

  await page.locator('input[name="location"]').fill(widgetClone);
  await page.locator('[data-action="register"]').click();
  const consent = page.locator('[data-consent="acme/widget"]');
  await consent.waitFor();
  expect(await consent.textContent()).toContain('acme/widget has secret-looking keys in its .env files: STRIPE_SECRET_KEY in .env.');
  expect(await page.locator('[data-codebase="acme/widget"] [data-env-keys]').getAttribute('data-env-keys')).toBe('blocked');

  // Declined: nothing changes on the server, and the keys stay blocked.
  await consent.locator('[data-action="keep-blocked"]').click();
  await expect.poll(() => page.locator('[data-consent]').count()).toBe(0);
  expect(await page.locator('[data-registered="acme/widget"] [data-env-keys]').getAttribute('data-env-keys')).toBe('blocked');
  expect((await codebase('acme/widget')).allow_env_keys).toBe(false);

  // Registered again (the server answers the existing record), the page asks again; this time allowed.
  await page.locator('input[name="location"]').fill(widgetClone);
  await page.locator('[data-action="register"]').click();
  await consent.waitFor();
  await consent.locator('[data-action="allow-env"]').click();
  await expect.poll(() => page.locator('[data-consent]').count()).toBe(0);
  await expect.poll(() => page.locator('[data-codebase="acme/widget"] [data-env-keys]').getAttribute('data-env-keys')).toBe('allowed');
  expect((await codebase('acme/widget')).allow_env_keys).toBe(true);

  await page.locator('[data-codebase="acme/widget"] [data-action="revoke-env"]').click();
  await expect.poll(() => page.locator('[data-codebase="acme/widget"] [data-env-keys]').getAttribute('data-env-keys')).toBe('blocked');
  expect((await codebase('acme/widget')).allow_env_keys).toBe(false);

  // The key's name is shown; its value never reaches the page.
  expect(await page.content()).not.toContain(SECRET_VALUE);
  expect(bodies.some((body) => body.includes(SECRET_VALUE))).toBe(false);
  await checkNarrowAndDark(page);
  await page.close();
});

it('clones a repository by URL, asks nothing when its scan is clean, and deletes the clone', async () => {
  const page = await open('/codebases');
  await page.locator('select[name="source"]').selectOption('url');
  await page.locator('input[name="location"]').fill(gadgetUrl);
  await page.locator('[data-action="register"]').click();
  await page.locator('[data-registered="acme/gadget"]').waitFor();
  expect(await page.locator('[data-registered="acme/gadget"] [data-env-keys]').getAttribute('data-env-keys')).toBe('clean');
  const cloned = (await codebase('acme/gadget')).default_cwd as string;
  expect(existsSync(cloned)).toBe(true);
  expect(await page.locator('[data-codebase="acme/gadget"]').textContent()).toContain('cloned by Cairn');

  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('[data-codebase="acme/gadget"] [data-action="delete-codebase"]').click();
  await expect.poll(() => page.locator('[data-codebase-result]').textContent()).toBe(`Removed acme/gadget; its clone at ${cloned} was deleted.`);
  await expect.poll(() => page.locator('[data-codebase="acme/gadget"]').count()).toBe(0);
  expect(existsSync(cloned)).toBe(false);
  await page.close();
});

it('shows a codebase’s environments live, refuses to remove one a run works in, removes it once free, and deletes the codebase', async () => {
  // Registered by the first test; registered here when this one runs alone (the answer is then 200).
  await fetch(`${server.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: widgetClone }) });
  const page = await open('/codebases');
  const row = page.locator('[data-codebase="acme/widget"]');
  await row.waitFor();
  // Keyboard: j/k move between codebases, Enter opens the environments of the one under the cursor.
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await row.locator('text=No environment').waitFor();
  // `/` goes to the register field; Escape leaves it.
  await page.keyboard.press('/');
  expect(await page.evaluate("document.activeElement?.getAttribute('name')")).toBe('location');
  await page.keyboard.press('Escape');

  const { runId } = await startRun(server.url, 'hold', { codebaseId: 'acme/widget' });
  const env = row.locator('[data-environment]');
  await env.waitFor();
  expect(await env.locator('[data-action="remove-environment"]').isDisabled()).toBe(true);
  expect(await env.locator('.why').textContent()).toBe(` run ${runId.slice(0, 12)} works in it`);

  await writeFile(join(root, 'go'), '');
  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'completed', { what: 'the run to complete' });
  // The run's end on the stream frees the environment on the page.
  await expect.poll(() => env.locator('[data-action="remove-environment"]').isDisabled()).toBe(false);
  const path = (await env.locator('code').textContent())!;
  expect(existsSync(path)).toBe(true);
  await env.locator('[data-action="remove-environment"]').click();
  await row.locator('[data-environment-result]').waitFor();
  await expect.poll(() => row.locator('[data-environment]').count()).toBe(0);
  expect(existsSync(path)).toBe(false);

  page.once('dialog', (dialog) => void dialog.accept());
  await row.locator('[data-action="delete-codebase"]').click();
  await expect.poll(() => page.locator('[data-codebase-result]').textContent()).toBe(`Removed acme/widget; its folder ${widgetClone} is left on disk.`);
  expect(existsSync(widgetClone)).toBe(true);
  expect(((await (await fetch(`${server.url}/api/codebases`)).json()) as { codebases: unknown[] }).codebases).toEqual([]);
  await page.close();
});
