import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt } from '../cli/cli-process.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { openBrowser, type Browser } from './browser.js';
import { checkNarrowAndDark } from './page-checks.js';

/**
 * The dashboard's chat as a person uses it: the real `cairn serve` (one for the file) whose
 * default assistant is a local server speaking the Anthropic Messages API (scripted answers),
 * Debian's Chromium looking at the page. What is checked is what the page shows and what the
 * server stored.
 */

let home: TempHome;
let server: RunningServer;
let model: AnthropicServer;
let browser: Browser;
const codebases: string[] = [];
const pageErrors: string[] = [];
let releaseRest: () => void = () => undefined;
const rest = new Promise<void>((resolve) => (releaseRest = resolve));

/** An answer a prompt could make a model write: none of it may run or load anything in the page. */
const HOSTILE_ANSWER =
  'Here: <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2"> ' +
  '[click me](javascript:window.__pwned=3) <a href="javascript:window.__pwned=4">raw link</a> and [the docs](https://example.com/docs).';

function reply(body: { messages?: { content?: unknown }[] }): MessagesReply {
  const asked = JSON.stringify(body.messages ?? []);
  if (asked.includes('release notes')) {
    return { kind: 'stream', blocks: [{ type: 'text', text: 'Working on **the release**. ' }, { type: 'text', text: HOSTILE_ANSWER }], restHeldUntil: rest };
  }
  return { kind: 'stream', blocks: [{ type: 'text', text: 'Fine, thank you.' }] };
}

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  model = await startAnthropicServer((req) => reply(req.body));
  home.defer(() => model.close());
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: says hi\nnodes:\n  - id: a\n    bash: echo hi\n');
  server = await startServer(home, {
    CAIRN_DEFAULT_ASSISTANT: 'anthropic',
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-chat-test-key',
  });
  for (const name of ['alpha', 'beta']) {
    const dir = join(home.home, name);
    await mkdir(dir);
    const res = await fetch(`${server.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: dir }) });
    codebases.push(((await res.json()) as { id: string }).id);
  }
  browser = await openBrowser(home);
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  // Every request the page made went to the server that served it.
  expect(browser?.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
  await home?.close();
});

async function open(path: string): Promise<Page> {
  const page = await browser.page();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}

/** Waits until the open conversation's own stream is live (the message box takes messages). */
async function conversationReady(page: Page): Promise<void> {
  await page.locator('[data-conversation]').waitFor();
  await expect.poll(() => page.locator('.composer p.muted').count()).toBe(0);
}

const conversationIdOf = (page: Page) => decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');

async function storedMessages(id: string): Promise<{ role: string; content: string }[]> {
  return (await fetch(`${server.url}/api/conversations/${id}/messages`)).json() as Promise<{ role: string; content: string }[]>;
}

it('starts a conversation on a codebase, streams the answer as it is written, and renders hostile markdown inert', async () => {
  const page = await open('/chat');
  await page.locator('select[name="new-codebase"]').selectOption(codebases[0]!);
  await page.locator('[data-action="new-conversation"]').click();
  await page.waitForURL(/\/chat\/web-/);
  await conversationReady(page);
  const id = conversationIdOf(page);
  expect(await page.locator('[data-codebase]').textContent()).toBe(codebases[0]);

  await page.locator('textarea[name="message"]').fill('Write the release notes');
  await page.keyboard.press('Enter');
  // The message shows at once; the first part of the answer shows while the rest is still held
  // by the model server: the page shows the text as its frames arrive, not at the end.
  await page.locator('[data-message-role="user"]', { hasText: 'Write the release notes' }).waitFor();
  await expect.poll(() => page.locator('[data-streaming] .markdown').textContent()).toContain('Working on the release.');
  expect(await page.locator('[data-streaming] strong').textContent()).toBe('the release');
  expect(await page.locator('[data-message-role="assistant"]').count()).toBe(0);
  expect((await storedMessages(id)).filter((m) => m.role === 'assistant')).toEqual([]);

  releaseRest();
  const answer = page.locator('[data-message-role="assistant"]');
  await answer.waitFor();
  await expect.poll(() => page.locator('[data-streaming]').count()).toBe(0);
  // The answer is stored as it was written, and shown as markdown with every piece of markup inert.
  expect((await storedMessages(id)).at(-1)).toMatchObject({ role: 'assistant', content: `Working on **the release**. ${HOSTILE_ANSWER}` });
  const text = await answer.locator('.markdown').textContent();
  expect(text).toContain('<script>window.__pwned=1</script>');
  expect(text).toContain('<img src=x onerror="window.__pwned=2">');
  expect(await answer.locator('script, img, [onerror]').count()).toBe(0);
  const hrefs = await answer.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  expect(hrefs.filter((href) => href && !href.startsWith('javascript:'))).toEqual(['https://example.com/docs']);
  expect(hrefs.some((href) => href?.startsWith('javascript:'))).toBe(false);
  await answer.locator('a', { hasText: 'click me' }).click();
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await answer.locator('a[href="https://example.com/docs"]').getAttribute('rel')).toBe('noopener noreferrer');

  // The conversation is listed, titled by its first message.
  await expect.poll(() => page.locator(`[data-conversation-id="${id}"] a`).textContent()).toBe('Write the release notes');
  await checkNarrowAndDark(page);
  await page.close();
});

it('offers the slash commands as you type /, the same list /help answers, and completes workflow and codebase names', async () => {
  const page = await open('/chat');
  await page.locator('[data-action="new-conversation"]').click();
  await page.waitForURL(/\/chat\/web-/);
  await conversationReady(page);
  const id = conversationIdOf(page);
  const box = page.locator('textarea[name="message"]');
  await box.focus();
  await page.keyboard.type('/');
  const offered = await page.locator('[data-suggestion]').evaluateAll((items) => items.map((li) => li.textContent));
  expect(offered).toHaveLength(13);

  // The list the page offers is the one the server answers /help with.
  await page.keyboard.type('he');
  expect(await page.locator('[data-suggestion]').count()).toBe(1);
  await page.keyboard.press('Tab');
  expect(await box.inputValue()).toBe('/help');
  await page.keyboard.press('Enter');
  await page.locator('[data-message-role="assistant"]').waitFor();
  const help = await waitFor(async () => (await storedMessages(id)).find((m) => m.role === 'assistant')?.content);
  expect(help.split('\n').slice(1).map((line) => line.replace(/^- /, '').replace(' — ', ' '))).toEqual(offered);
  // Its `<name>` placeholders read as written, not as markup.
  expect(await page.locator('[data-message-role="assistant"] .markdown').textContent()).toContain('/setproject <name> — work on a registered codebase');

  // ↓ and Tab take a command; after `/workflow run ` the workflows are offered, after `/setproject ` the codebases.
  await box.fill('');
  await page.keyboard.type('/workflow r');
  expect(await page.locator('[data-suggestion]').evaluateAll((items) => items.map((li) => li.getAttribute('data-suggestion')))).toEqual([
    '/workflow run <name> [message]',
    '/workflow resume <id> [--reload]',
    '/workflow reject <id> [reason]',
  ]);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Tab');
  expect(await box.inputValue()).toBe('/workflow run ');
  await page.keyboard.type('pla');
  await page.locator('[data-suggestion="/workflow run plain"]').waitFor();
  await page.keyboard.press('Enter');
  expect(await box.inputValue()).toBe('/workflow run plain ');
  await box.fill('');
  await page.keyboard.type('/setproject ');
  await expect.poll(() => page.locator('[data-suggestion]').count()).toBe(2);
  // Escape closes the list, a second one leaves the box.
  await page.keyboard.press('Escape');
  expect(await page.locator('[data-suggestion]').count()).toBe(0);
  expect(await page.evaluate("document.activeElement?.getAttribute('name')")).toBe('message');
  await page.keyboard.press('Escape');
  expect(await page.evaluate("document.activeElement?.getAttribute('name')")).not.toBe('message');
  await page.close();
});

it('changes the bound codebase, renames and deletes a conversation, and opens one by keyboard', async () => {
  const page = await open('/chat');
  // `n` starts a new conversation.
  await page.locator('[data-action="new-conversation"]').waitFor();
  await page.keyboard.press('n');
  await page.waitForURL(/\/chat\/web-/);
  await conversationReady(page);
  const id = conversationIdOf(page);
  expect(await page.locator('[data-codebase]').textContent()).toBe('none');

  // The binding changes the chat's own way, with /setproject, and the header follows.
  await page.locator('select[name="codebase"]').selectOption(codebases[1]!);
  await page.locator('[data-action="bind"]').click();
  await expect.poll(() => page.locator('[data-codebase]').textContent()).toBe(codebases[1]);
  const stored = (await (await fetch(`${server.url}/api/conversations/${id}`)).json()) as { codebase_id: string };
  expect(stored.codebase_id).toBe(codebases[1]);

  await page.locator('[data-action="rename"]').click();
  await page.locator('input[name="title"]').fill('Release <b>prep</b>');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('[data-title]').textContent()).toBe('Release <b>prep</b>');
  await expect.poll(() => page.locator(`[data-conversation-id="${id}"] a`).textContent()).toBe('Release <b>prep</b>');

  // Keyboard: back to the list, j/k move, Enter opens the conversation under the cursor.
  await page.goto(`${server.url}/chat`);
  await page.locator(`[data-conversation-id="${id}"]`).waitFor();
  const rows = await page.locator('[data-conversation-id]').evaluateAll((items) => items.map((li) => li.getAttribute('data-conversation-id')));
  const index = rows.indexOf(id);
  for (let i = 0; i < index; i++) await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('j');
  if (index === 0) await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/chat/${id}`);
  await conversationReady(page);

  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('[data-action="delete-conversation"]').click();
  await page.waitForURL(/\/chat$/);
  await expect.poll(() => page.locator(`[data-conversation-id="${id}"]`).count()).toBe(0);
  const listed = (await (await fetch(`${server.url}/api/conversations`)).json()) as { platform_conversation_id: string }[];
  expect(listed.map((c) => c.platform_conversation_id)).not.toContain(id);

  // A conversation that does not exist says so and where to go.
  await page.goto(`${server.url}/chat/web-0-nosuch`);
  expect(await page.locator('[data-error="conversation"]').textContent()).toBe('Conversation not found');
  await page.close();
});

it('sends files with a message: refuses past the API’s limits with its words, shows its refusal, and stores them', async () => {
  const page = await open('/chat');
  await page.locator('[data-action="new-conversation"]').click();
  await page.waitForURL(/\/chat\/web-/);
  await conversationReady(page);
  const id = conversationIdOf(page);
  const files = page.locator('.composer input[type="file"]');
  await files.setInputFiles(Array.from({ length: 6 }, (_, i) => ({ name: `n${i}.txt`, mimeType: 'text/plain', buffer: Buffer.from('x') })));
  expect(await page.locator('[data-attachment-refusal]').textContent()).toBe('Too many files: a message takes at most 5 attachments');
  const notes = Buffer.from('line one\nline two\n');
  await files.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: notes });
  expect(await page.locator('[data-attachment]').evaluateAll((items) => items.map((i) => i.getAttribute('data-attachment')))).toEqual(['notes.txt']);

  // A message the server refuses (longer than a body may be): its words, and the files stay chosen.
  await page.locator('textarea[name="message"]').fill('x'.repeat(1024 * 1024 + 1));
  await page.locator('[data-action="send"]').click();
  await expect.poll(() => page.locator('[data-send-error]').textContent()).toBe("Field 'message' is larger than the 1048576-byte limit");
  expect(await page.locator('[data-attachment="notes.txt"]').count()).toBe(1);

  await page.locator('textarea[name="message"]').fill('Read the attached notes');
  await page.keyboard.press('Enter');
  const mine = page.locator('[data-message-role="user"]', { hasText: 'Read the attached notes' });
  await mine.waitFor();
  expect(await mine.locator('[data-message-file="notes.txt"]').textContent()).toBe('notes.txt 18 B');
  expect(await page.locator('[data-attachment]').count()).toBe(0);
  // Stored with the message, and on disk under the conversation's files, byte for byte.
  const stored = (await storedMessages(id)) as { role: string; content: string; metadata: string }[];
  expect(JSON.parse(stored.find((m) => m.role === 'user')!.metadata).files).toEqual([{ name: 'notes.txt', mimeType: 'text/plain', size: notes.length }]);
  const [upload] = await readdir(home.paths.conversationFiles(id));
  expect(await readFile(join(home.paths.conversationFiles(id), upload!, 'notes.txt'))).toEqual(notes);
  await page.close();
});
