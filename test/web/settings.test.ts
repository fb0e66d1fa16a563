import { readFile, writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { oauthConfigYaml, startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { versionOnlyCliEnv } from '../helpers/version-only-clis.js';
import { waitFor } from '../helpers/wait-for.js';
import { openBrowser, type Browser } from './browser.js';
import { checkNarrowAndDark } from './page-checks.js';

/**
 * The dashboard's settings page as a person uses it: the real `cairn serve` (one for the file),
 * Debian's Chromium looking at the page. What is checked is what the page shows, what the server
 * stored, and that no key ever comes back.
 */

let home: TempHome;
let server: RunningServer;
let browser: Browser;
/** The local authorization server the subscription logins are configured to use. */
let auth: OAuthServer;
const pageErrors: string[] = [];
/** Every answer any page read, to check that no key ever came back. */
const bodies: string[] = [];
const USER_KEY = 'sk-ant-PAGE-SECRET-0123456789abcdef';
const ENV_KEY = 'sk-env-SERVER-SECRET-9876543210';

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  // Device codes advertised and enforced at one second: the page polls at the interval it is given.
  auth = await startOAuthServer({ deviceInterval: 1 });
  home.defer(() => auth.close());
  await writeFile(home.paths.config, oauthConfigYaml(auth));
  // The doctor's checks ask every provider CLI for its version: scripts that answer at once.
  server = await startServer(home, { OPENAI_API_KEY: ENV_KEY, ...(await versionOnlyCliEnv(home.home)) });
  browser = await openBrowser(home);
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  expect(browser?.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
  expect(bodies.filter((body) => body.includes(USER_KEY) || body.includes(ENV_KEY))).toEqual([]);
  // No token a subscription login got ever reached the page either.
  expect(bodies.filter((body) => auth.issued.some((token) => body.includes(token)))).toEqual([]);
  await home?.close();
});

async function open(path: string): Promise<Page> {
  const page = await browser.page();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (message) => {
    // A refused request (the 401 without a user, a 400) is logged by the browser; the page shows it itself.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
  page.on('response', (response) => {
    if (!response.url().includes('/api/stream/')) void response.text().then((body) => bodies.push(body), () => undefined);
  });
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}

const api = async (path: string, user?: string) =>
  (await fetch(`${server.url}${path}`, { headers: user ? { 'x-service-user': user } : {} })).json() as Promise<Record<string, any>>;

it('sets the install’s default assistant, a tier and an alias, shows a refusal as the server says it, and unsets them', async () => {
  const page = await open('/settings');
  const install = page.locator('[data-section="install"]');
  await expect.poll(() => install.locator('[data-current-assistant]').textContent()).toBe('now: claude');
  // An unset tier shows what it falls back to.
  expect(await install.locator('[data-tier="large"] [data-tier-value]').textContent()).toMatch(/^default: claude\//);

  await install.locator('select[name="install-assistant"]').selectOption('anthropic');
  await install.locator('input[name="install-model"]').fill('claude-sonnet-4-5');
  await install.locator('[data-action="install-save-assistant"]').click();
  await expect.poll(() => install.locator('[data-current-assistant]').textContent()).toBe('now: anthropic · claude-sonnet-4-5');
  expect(await api('/api/config')).toMatchObject({ assistant: 'anthropic', assistants: { anthropic: { model: 'claude-sonnet-4-5' } } });
  expect(await readFile(home.paths.config, 'utf8')).toContain('defaultAssistant: anthropic');

  const large = install.locator('[data-tier="large"]');
  await large.locator('select').selectOption('anthropic');
  await large.locator('input').fill('claude-opus-4-1');
  await large.locator('[data-action="set-tier"]').click();
  await expect.poll(() => large.locator('[data-tier-value]').textContent()).toBe('anthropic/claude-opus-4-1');

  await install.locator('input[name="install-alias-name"]').fill('fast');
  await install.locator('select[name="install-alias-provider"]').selectOption('anthropic');
  await install.locator('input[name="install-alias-model"]').fill('claude-haiku-4-5');
  await install.locator('[data-action="add-alias"]').click();
  await expect.poll(() => install.locator('[data-model-result]').getAttribute('class')).toBe('result error');
  expect(await install.locator('[data-model-result]').textContent()).toMatch(/^aliases: .*'@'/);
  await install.locator('input[name="install-alias-name"]').fill('@fast');
  await install.locator('[data-action="add-alias"]').click();
  await install.locator('[data-alias="@fast"]').waitFor();
  expect(await install.locator('[data-alias="@fast"] td').first().textContent()).toBe('anthropic/claude-haiku-4-5');
  expect((await api('/api/config')).aliases).toEqual({ '@fast': { provider: 'anthropic', model: 'claude-haiku-4-5' } });

  await install.locator('[data-alias="@fast"] [data-action="remove-alias"]').click();
  await expect.poll(() => install.locator('[data-alias]').count()).toBe(0);
  await large.locator('[data-action="unset-tier"]').click();
  await expect.poll(() => large.locator('[data-tier-value]').textContent()).toMatch(/^default: /);
  expect((await api('/api/config')).tiers).toEqual({});
  await checkNarrowAndDark(page);
  await page.close();
});

it('asks who you are for the per-user settings, then sets your own default, tier and alias', async () => {
  const page = await open('/settings');
  await page.locator('[data-identity="needed"]').waitFor();
  // By keyboard: the field, then Enter.
  await page.locator('input[name="user"]').fill('ada');
  await page.keyboard.press('Enter');
  const mine = page.locator('[data-section="user"]');
  await mine.locator('[data-identity="known"]').waitFor();
  await expect.poll(() => mine.locator('[data-current-assistant]').textContent()).toBe('now: the install’s');

  await mine.locator('select[name="user-assistant"]').selectOption('codex');
  await mine.locator('[data-action="user-save-assistant"]').click();
  await expect.poll(() => mine.locator('[data-current-assistant]').textContent()).toBe('now: codex');
  const small = mine.locator('[data-tier="small"]');
  await small.locator('select').selectOption('codex');
  await small.locator('input').fill('gpt-5.5-mini');
  await small.locator('[data-action="set-tier"]').click();
  await expect.poll(() => small.locator('[data-tier-value]').textContent()).toBe('codex/gpt-5.5-mini');
  await mine.locator('input[name="user-alias-name"]').fill('@mine');
  await mine.locator('select[name="user-alias-provider"]').selectOption('codex');
  await mine.locator('input[name="user-alias-model"]').fill('gpt-5.5');
  await mine.locator('[data-action="add-alias"]').click();
  await mine.locator('[data-alias="@mine"]').waitFor();
  expect(await api('/api/auth/me/ai-prefs', 'ada')).toEqual({
    defaultProvider: 'codex',
    tiers: { small: { provider: 'codex', model: 'gpt-5.5-mini' } },
    aliases: { '@mine': { provider: 'codex', model: 'gpt-5.5' } },
  });
  // The install's layer is untouched, and another user has none of it.
  expect(await api('/api/auth/me/ai-prefs', 'bob')).toEqual({});

  // The name is kept in this browser: a reload knows it.
  await page.reload();
  await page.locator('[data-section="user"] [data-identity="known"]').waitFor();
  expect(await page.locator('input[name="user"]').inputValue()).toBe('ada');
  await page.close();
});

it('connects and removes your provider key without the key ever coming back, and shows the server’s facts', async () => {
  const page = await open('/settings');
  await page.locator('input[name="user"]').fill('ada');
  await page.locator('[data-action="use-user"]').click();
  const anthropic = page.locator('[data-vendor="anthropic"]');
  await anthropic.waitFor();
  expect(await anthropic.locator('[data-connection]').textContent()).toBe('not connected');
  // The server's environment has an OpenAI key: said, never shown.
  expect(await page.locator('[data-vendor="openai"] [data-connection]').textContent()).toContain('the server’s environment has a key');

  expect(await anthropic.locator('[data-action="connect"]').isDisabled()).toBe(true);
  await anthropic.locator('input[name="key-anthropic"]').fill(USER_KEY);
  expect(await anthropic.locator('input[name="key-anthropic"]').getAttribute('type')).toBe('password');
  await anthropic.locator('input[name="label-anthropic"]').fill('work key');
  await anthropic.locator('[data-action="connect"]').click();
  await expect.poll(() => page.locator('[data-credential-result]').textContent()).toBe('Connected work key for anthropic.');
  await expect.poll(() => anthropic.locator('[data-connection]').textContent()).toBe('connected: work key (API key)');
  expect(await anthropic.locator('input[name="key-anthropic"]').inputValue()).toBe('');
  expect((await api('/api/auth/providers', 'ada')).connections).toEqual([{ provider: 'anthropic', kind: 'api_key', label: 'work key' }]);

  // After a reload too, the page holds the label, never the key.
  await page.reload();
  await expect.poll(() => page.locator('[data-vendor="anthropic"] [data-connection]').textContent()).toBe('connected: work key (API key)');
  const shown = await page.content();
  expect(shown).not.toContain(USER_KEY);
  expect(shown).not.toContain(ENV_KEY);

  await page.locator('[data-vendor="anthropic"] [data-action="disconnect"]').click();
  await expect.poll(() => page.locator('[data-vendor="anthropic"] [data-connection]').textContent()).toBe('not connected');
  expect((await api('/api/auth/providers', 'ada')).connections).toEqual([]);

  // What the server says about itself.
  expect(await page.locator('[data-server]').textContent()).toMatch(/^Cairn \S+ · supervisor up · 0 running/);
  expect(await page.locator('[data-section="server"] [data-provider="claude"]').count()).toBe(1);
  await page.close();
});

it('runs `cairn doctor`’s checks on the server when asked, shows each with what to do, and never a key', async () => {
  // A key stored for a user, beside the one in the server's environment: both named, neither shown.
  const stored = await fetch(`${server.url}/api/auth/providers/anthropic`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-service-user': 'dee' },
    body: JSON.stringify({ apiKey: USER_KEY, label: 'dee’s key' }),
  });
  expect(stored.status).toBe(200);
  const page = await open('/settings');
  const doctor = page.locator('[data-section="doctor"]');
  // Nothing runs until asked (each run asks every provider CLI for its --version).
  expect(await doctor.locator('[data-doctor]').getAttribute('data-doctor')).toBe('idle');
  const answered = page.waitForResponse((res) => res.url() === `${server.url}/api/system/doctor`);
  await doctor.locator('[data-action="run-doctor"]').click();
  const report = (await (await answered).json()) as { home: string; ok: boolean; checks: { id: string; status: string; detail: string; next: string | null }[] };
  await doctor.locator('[data-doctor="done"]').waitFor();

  // The server checked itself, at its own address, and its database through it.
  expect(report.home).toBe(home.home);
  const check = (id: string) => doctor.locator(`[data-check="${id}"]`);
  expect(await check('server').getAttribute('data-check-status')).toBe('ok');
  expect(await check('server').locator('[data-check-detail]').textContent()).toMatch(new RegExp(`^${server.url} \\(from this server\\) answers: Cairn \\S+, supervisor up`));
  expect(await check('database').locator('[data-check-detail]').textContent()).toContain(`the server at ${server.url} says, GET /health/db`);
  // The executables the server's own environment names.
  expect(await check('provider.codex.executable').locator('[data-check-detail]').textContent()).toContain('(from CODEX_BIN_PATH), version-only-cli 1.0');
  // Where each credential comes from, as the server sees it: its environment, a stored key.
  expect(await check('provider.codex.credential').locator('[data-check-detail]').textContent()).toContain('OPENAI_API_KEY');
  expect(await check('provider.anthropic.credential').locator('[data-check-detail]').textContent()).toMatch(/a stored anthropic credential \(\d+ users?\)/);
  // Every check the server answered is on the page, in its order, with its status, and what to do for any not ok.
  expect(await doctor.locator('[data-check]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-check')))).toEqual(report.checks.map((c) => c.id));
  for (const c of report.checks) {
    expect(await check(c.id).locator('.badge').textContent()).toBe({ ok: 'ok', warn: 'warn', failed: 'FAILED' }[c.status]);
    expect(await check(c.id).locator('[data-check-next]').textContent()).toBe(c.next ?? '');
    expect(c.next === null, c.id).toBe(c.status === 'ok');
  }
  const counts = (s: string) => report.checks.filter((c) => c.status === s).length;
  expect(await doctor.locator('[data-doctor-summary]').textContent()).toContain(`${counts('ok')} ok, ${counts('warn')} warn, ${counts('failed')} FAILED`);
  const body = JSON.stringify(report);
  expect(body).not.toContain(USER_KEY);
  expect(body).not.toContain(ENV_KEY);

  // docs/http-api.md shows this answer's shape.
  const doc = await readFile(new URL('../../docs/http-api.md', import.meta.url), 'utf8');
  const shown = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc.slice(doc.indexOf('### `GET /api/system/doctor`')))![1]!) as typeof report;
  expect(Object.keys(shown)).toEqual(Object.keys(report));
  for (const c of shown.checks) expect(Object.keys(c)).toEqual(Object.keys(report.checks[0]!));
  expect(report.checks.map((c) => c.id)).toEqual(expect.arrayContaining(shown.checks.map((c) => c.id)));
  await page.close();
});

it('signs in with a subscription: a device code to enter while the page waits, or a code pasted back from the sign-in page', async () => {
  const page = await open('/settings');
  await page.locator('input[name="user"]').fill('cy');
  await page.locator('[data-action="use-user"]').click();

  // Device login (GitHub Copilot): the page shows the code and where to enter it, and polls.
  const copilot = page.locator('[data-vendor="github-copilot"]');
  await copilot.locator('[data-action="subscription"]').click();
  const userCode = copilot.locator('[data-user-code]');
  await userCode.waitFor();
  expect(await copilot.locator('[data-login-url]').getAttribute('href')).toMatch(new RegExp(`^${auth.url}/`));
  expect(await copilot.locator('[data-login-waiting]').textContent()).toContain('waiting for you to approve it');
  // The person enters the code at the vendor and approves: the page sees the login connected.
  auth.approveDevice((await userCode.textContent())!);
  // The page's next poll (at the interval) exchanges the device code: the server then holds the login.
  await waitFor(async () => ((await api('/api/auth/providers', 'cy')).connections.length === 1 ? true : undefined), {
    what: 'the page’s poll to connect the device login',
  });
  await expect.poll(() => page.locator('[data-credential-result]').textContent()).toBe('Connected your github-copilot subscription.');
  await expect.poll(() => copilot.locator('[data-connection]').textContent()).toMatch(/^connected: .+ \(subscription\)$/);

  // Manual login (Anthropic): the page links the sign-in page; the code it shows is pasted back once.
  const anthropic = page.locator('[data-vendor="anthropic"]');
  await anthropic.locator('[data-action="subscription"]').click();
  const signIn = await anthropic.locator('[data-login-url]').getAttribute('href');
  expect(signIn).toMatch(new RegExp(`^${auth.url}/authorize\\?`));
  expect(await anthropic.locator('[data-login-url]').getAttribute('target')).toBe('_blank');
  // What the person does in the other tab: sign in (consent is implied here), land on the redirect.
  const landed = new URL((await fetch(signIn!, { redirect: 'manual' })).headers.get('location')!);
  await anthropic.locator('input[name="code-anthropic"]').fill(`${landed.searchParams.get('code')}#${landed.searchParams.get('state')}`);
  await anthropic.locator('[data-action="finish-login"]').click();
  await expect.poll(() => page.locator('[data-credential-result]').textContent()).toBe('Connected your anthropic subscription.');
  await expect.poll(() => anthropic.locator('[data-connection]').textContent()).toMatch(/^connected: .+ \(subscription\)$/);
  expect(((await api('/api/auth/providers', 'cy')).connections as { provider: string; kind: string }[]).map((c) => [c.provider, c.kind]).sort()).toEqual([
    ['anthropic', 'oauth'],
    ['github-copilot', 'oauth'],
  ]);

  // A login abandoned halfway is cancelled on the page; a code the server cannot exchange is refused as it says.
  const openai = page.locator('[data-vendor="openai"]');
  await openai.locator('[data-action="subscription"]').click();
  await openai.locator('input[name="code-openai"]').fill('not-a-real-code');
  await openai.locator('[data-action="finish-login"]').click();
  await expect.poll(() => page.locator('[data-credential-result]').textContent()).toMatch(/^The openai sign-in failed: /);
  expect(await openai.locator('[data-connection]').textContent()).toContain('not connected');
  await openai.locator('[data-action="subscription"]').click();
  await openai.locator('[data-action="cancel-login"]').click();
  expect(await openai.locator('[data-login-url]').count()).toBe(0);
  await page.close();
});
