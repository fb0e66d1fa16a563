import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { openBrowser, type Browser } from './browser.js';

/**
 * The dashboard's workflow pages as a person uses them: the real `cairn serve` (one for the
 * file), workflows in all three scopes (a project folder, the home, the bundled ones), Debian's
 * Chromium looking at the page. What is checked is what the page shows and what the server did.
 */

let home: TempHome;
let server: RunningServer;
let browser: Browser;
let project: string;
const pageErrors: string[] = [];
/** A name and a text a page must show as text, never as markup. */
const HOSTILE = '<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">';
const HOSTILE_NAME = '<script>window.__pwned=1<"><img src=x onerror="window.__pwned=2">';

beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  await writeHomeWorkflow(
    home,
    'greet',
    `name: greet
description: says hello to the inputs
inputs:
  who: { required: true, description: whom to greet }
  mood: { default: cheerful }
  times: { type: integer, default: 2 }
nodes:
  - id: hello
    bash: 'printf "hello %s, %s (%s)" "$INPUTS.who" "$INPUTS.mood" "$ARGUMENTS"'
    colour: blue
`,
  );
  await writeHomeWorkflow(
    home,
    'commented',
    `# Owned by the build team: ask in #build before changing it.
name: commented
description: a workflow whose file has comments
nodes:
  # The quick check first.
  - id: check
    bash: echo checked   # keep it quick
`,
  );
  await writeHomeWorkflow(home, 'hostile', `name: '${HOSTILE_NAME}'\ndescription: '${HOSTILE}'\nnodes:\n  - id: a\n    bash: echo hi\n`);
  await writeHomeWorkflow(home, 'broken', 'name: broken\ndescription: [unclosed\n');
  await writeHomeWorkflow(home, 'tagged-nightly', 'name: tagged-nightly\ndescription: t\ntags: [nightly, review]\nnodes:\n  - id: a\n    bash: echo a\n');
  await writeHomeWorkflow(home, 'tagged-review', 'name: tagged-review\ndescription: t\ntags: [review]\nnodes:\n  - id: a\n    bash: echo a\n');
  project = join(home.home, 'project');
  await mkdir(join(project, '.cairn', 'workflows'), { recursive: true });
  await writeFile(
    join(project, '.cairn', 'workflows', 'local.yaml'),
    'name: local\ndescription: the project’s own\nnodes:\n  - id: a\n    bash: echo local\n',
  );
  server = await startServer(home);
  browser = await openBrowser(home);
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await home?.close();
});

async function open(path: string): Promise<Page> {
  const page = await browser.page();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (message) => {
    // A failed request (the 400 of a refused run) is logged by the browser; the page shows it itself.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-stream="live"]').waitFor();
  return page;
}

it('lists the workflows by scope with their warnings and load errors, hostile names as text, and moves by keyboard', async () => {
  const page = await open(`/workflows?cwd=${encodeURIComponent(project)}`);
  const project_ = page.locator('[data-scope="project"]');
  await project_.locator('[data-workflow="local"]').waitFor();
  const homeScope = page.locator('[data-scope="global"]');
  expect(await homeScope.locator('h2').textContent()).toMatch(/^home/);
  // The unknown key is named beside its workflow; the file that did not load is named with why.
  await expect.poll(() => homeScope.locator('[data-workflow="greet"] .warning').textContent()).toBe("Node 'hello': unknown key 'colour' will be ignored.");
  expect(await page.locator('[data-load-error="broken.yaml"]').textContent()).toMatch(/^broken\.yaml \(home, parse error\): \S/);
  expect(await page.locator('[data-scope="bundled"] tr').count()).toBeGreaterThan(0);

  // The hostile name and description are text: no element made of them, no script run.
  const hostile = homeScope.locator('tr', { hasText: 'window.__pwned' });
  expect(await hostile.locator('td').first().textContent()).toBe(HOSTILE_NAME);
  expect(await hostile.locator('td').nth(1).textContent()).toBe(HOSTILE);
  expect(await page.locator('img, .workflows script').count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();

  // `/` searches, Escape leaves the field, j/k move, Enter opens the workflow under the cursor.
  await page.keyboard.press('/');
  await page.keyboard.type('gree');
  await page.keyboard.press('Escape');
  await expect.poll(() => page.locator('tr[data-workflow]').count()).toBe(1);
  expect(new URL(page.url()).searchParams.get('q')).toBe('gree');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await page.locator('[data-workflow-name]').waitFor();
  expect(new URL(page.url()).pathname).toBe('/workflows/greet');
  await page.close();
});

it('shows each workflow’s tags (from GET /api/workflows) and filters by one, chosen from the list or a row, kept in the address', async () => {
  const listed = (await (await fetch(`${server.url}/api/workflows`)).json()) as { workflows: { workflow: { name: string; tags?: string[] } }[] };
  expect(listed.workflows.find((e) => e.workflow.name === 'tagged-nightly')?.workflow.tags).toEqual(['nightly', 'review']);

  const page = await open('/workflows');
  const rows = () => page.locator('tr[data-workflow]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-workflow')));
  await page.locator('[data-workflow="tagged-nightly"]').waitFor();
  expect(await page.locator('[data-workflow="tagged-nightly"] .tag').allTextContents()).toEqual(['nightly', 'review']);
  expect(await page.locator('select[name="tag"] option').allTextContents()).toEqual(['all tags', 'nightly', 'review']);

  await page.selectOption('select[name="tag"]', 'review');
  await expect.poll(rows).toEqual(['tagged-nightly', 'tagged-review']);
  expect(new URL(page.url()).searchParams.get('tag')).toBe('review');

  await page.locator('[data-workflow="tagged-nightly"] .tag[data-tag="nightly"]').click();
  await expect.poll(rows).toEqual(['tagged-nightly']);
  expect(new URL(page.url()).searchParams.get('tag')).toBe('nightly');

  // The filter is in the address: opened again from it, the page filters the same way.
  await page.reload();
  await expect.poll(rows).toEqual(['tagged-nightly']);
  expect(await page.locator('select[name="tag"]').inputValue()).toBe('nightly');
  await page.selectOption('select[name="tag"]', '');
  await expect.poll(async () => (await rows()).length).toBeGreaterThan(2);
  expect(new URL(page.url()).searchParams.has('tag')).toBe(false);
  await page.close();
});

it('shows a workflow as YAML and starts a run from the form built from its inputs, then shows the run', async () => {
  const page = await open('/workflows/greet');
  await expect.poll(() => page.locator('[data-yaml]').textContent()).toMatch(/^name: greet\n/);
  const yaml = (await page.locator('[data-yaml]').textContent())!;
  expect(yaml).toContain('inputs:\n  who:\n    required: true');
  expect(await page.locator('.warning').textContent()).toBe("Node 'hello': unknown key 'colour' will be ignored.");
  // The required input is marked, the default shown.
  expect(await page.locator('[data-input="who"]').textContent()).toContain('* required');
  expect(await page.locator('[data-input="mood"] input').getAttribute('placeholder')).toBe('default: cheerful');
  // A typed input says its type; the form's text is converted by it (docs/workflows.md, "Typed inputs").
  expect(await page.locator('[data-input="times"] input').getAttribute('placeholder')).toBe('integer · default: 2');

  // Missing the required input: the page says so and sends nothing.
  await page.locator('[data-input="who"] input').evaluate((input) => input.removeAttribute('required'));
  await page.locator('[data-action="start-run"]').click();
  expect(await page.locator('[data-run-error]').textContent()).toBe('Required input missing: who');

  await page.locator('[data-input="who"] input').fill('Ada');
  await page.locator('[data-input="times"] input').fill('3');
  await page.locator('textarea[name="message"]').fill('from the form');
  await page.locator('[data-action="start-run"]').click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = new URL(page.url()).pathname.split('/').pop()!;
  await page.locator('.run-head').waitFor();
  const run = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return detail.run.status === 'completed' ? detail : undefined;
  });
  const output = run.events.find((e) => e.event_type === 'node_completed')?.data?.node_output;
  expect(output ?? JSON.stringify(run.events)).toContain('hello Ada, cheerful (from the form)');
  expect(run.run.inputs).toEqual({ who: 'Ada', mood: 'cheerful', times: 3 });
  await page.close();
});

it('attaches files to a run from the form: refuses past the API’s limits with its words, shows its refusal, and the run gets them', async () => {
  // A project folder that is gone by the time the form is sent: the server's refusal, shown as it says it.
  const gone = join(home.home, 'gone-project');
  await mkdir(gone);
  let page = await open(`/workflows/greet?cwd=${encodeURIComponent(gone)}`);
  const files = page.locator('.run-form input[type="file"]');
  await files.waitFor();
  await page.locator('[data-input="who"] input').fill('Ada');
  // More than 5, or one over 10 MB: refused in the page with the API's text, nothing added.
  await files.setInputFiles(Array.from({ length: 6 }, (_, i) => ({ name: `n${i}.txt`, mimeType: 'text/plain', buffer: Buffer.from('x') })));
  expect(await page.locator('[data-attachment-refusal]').textContent()).toBe('Too many files: a run request takes at most 5 attachments');
  await files.setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) });
  expect(await page.locator('[data-attachment-refusal]').textContent()).toBe("Attachment 'big.bin' is larger than the 10485760-byte (10 MB) limit per file");
  expect(await page.locator('[data-attachment]').count()).toBe(0);
  // Chosen in two goes, two removed: the names listed are what will be sent.
  const notes = Buffer.from('# Notes\nship on Friday\n');
  const listed = () => page.locator('[data-attachment]').evaluateAll((items) => items.map((i) => i.getAttribute('data-attachment')));
  await files.setInputFiles([{ name: 'notes.md', mimeType: 'text/markdown', buffer: notes }, { name: 'data.json', mimeType: 'application/json', buffer: Buffer.from('{}') }]);
  await files.setInputFiles({ name: 'extra.txt', mimeType: 'text/plain', buffer: Buffer.from('extra') });
  expect(await listed()).toEqual(['notes.md', 'data.json', 'extra.txt']);
  await page.locator('[data-attachment="data.json"] [data-action="remove-attachment"]').click();
  await page.locator('[data-attachment="extra.txt"] [data-action="remove-attachment"]').click();
  expect(await listed()).toEqual(['notes.md']);
  expect(await page.locator('[data-attachment-refusal]').count()).toBe(0);
  await rm(gone, { recursive: true });
  await page.locator('[data-action="start-run"]').click();
  await expect.poll(() => page.locator('[data-run-error]').textContent()).toContain(gone);
  expect(await listed()).toEqual(['notes.md']);
  await page.close();

  page = await open('/workflows/greet');
  await page.locator('[data-input="who"] input').fill('Ada');
  await page.locator('.run-form input[type="file"]').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: notes });
  await page.locator('[data-action="start-run"]').click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = new URL(page.url()).pathname.split('/').pop()!;
  // On the run's page by the name Cairn gave it; on disk in its $ATTACHMENTS_DIR, byte for byte.
  await expect.poll(() => page.locator('[data-run-attachment="notes.md"]').textContent()).toBe('notes.md 23 B');
  expect(await readFile(join(home.paths.runArtifacts(runId), 'attachments', 'notes.md'))).toEqual(notes);
  expect((await getRun(server.url, runId)).run.metadata.attachments).toEqual([
    { name: 'notes.md', original_name: 'notes.md', path: 'attachments/notes.md', size: notes.length, mime_type: 'text/markdown' },
  ]);
  await page.close();
});

it('shows the server’s refusal of a project folder that does not exist', async () => {
  const page = await open(`/workflows?cwd=${encodeURIComponent(join(project, 'nowhere'))}`);
  await expect.poll(() => page.locator('[data-error="list"]').textContent()).toMatch(/\S/);
  await page.close();
});

it('edits a workflow: checks it as you type with the problems on their lines, hostile text as text, and refuses to save it invalid', async () => {
  const page = await open(`/workflows/greet?cwd=${encodeURIComponent(project)}`);
  await page.locator('[data-action="edit"]').click();
  const editor = page.locator('textarea[name="yaml"]');
  await expect.poll(() => editor.inputValue()).toMatch(/^name: greet\n/);
  const state = page.locator('[data-check-state]');
  await expect.poll(() => state.getAttribute('data-check-state')).toBe('valid');
  const save = page.locator('[data-action="save"]');
  expect(await save.isEnabled()).toBe(true);

  // A YAML error: its line, and Save refused with the reason.
  await editor.fill('name: greet\ndescription: fine\nnodes:\n  - id: a\n    bash: [unclosed\n');
  await expect.poll(() => state.getAttribute('data-check-state')).toBe('invalid');
  expect(await page.locator('[data-problem-line]').first().getAttribute('data-problem-line')).toMatch(/^[5-6]$/);
  expect(await save.isDisabled()).toBe(true);
  expect(await page.locator('[data-save-blocked]').textContent()).toBe('The workflow is invalid (1 problem): fix it to save');

  // A problem the server finds in a node sits on the node's line; its hostile text stays text.
  const hostileId = '"><img src=x onerror="window.__pwned=3"><script>window.__pwned=4</script>';
  await editor.fill(`name: greet\ndescription: fine\nnodes:\n  - id: a\n    bash: echo a\n    depends_on: ['${hostileId}']\n`);
  await expect.poll(() => page.locator('[data-problem-line]').first().textContent()).toContain(hostileId);
  expect(await page.locator('[data-problem-line]').first().getAttribute('data-problem-line')).toBe('4');
  expect(await page.locator('.problems .line').first().textContent()).toBe('line 4');
  expect(await page.locator('img, .problems script').count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await save.isDisabled()).toBe(true);
  // A click on the problem puts the cursor on its line.
  await page.locator('[data-problem-line="4"]').first().click();
  const selected = await editor.evaluate((el) => {
    const area = el as unknown as { value: string; selectionStart: number; selectionEnd: number };
    return area.value.slice(area.selectionStart, area.selectionEnd);
  });
  expect(selected).toBe('  - id: a');

  // Nothing was written meanwhile.
  expect(await readFile(join(home.paths.workflows, 'greet.yaml'), 'utf8')).toContain('says hello to the inputs');

  // Valid again: saved to the home scope, over the file that declares it; the page shows it saved.
  await editor.fill('name: greet\ndescription: edited in the browser\nnodes:\n  - id: a\n    bash: echo a\n');
  await expect.poll(() => state.getAttribute('data-check-state')).toBe('valid');
  await page.locator('select[name="scope"]').selectOption('global');
  await save.click();
  await page.waitForURL((url) => url.pathname === '/workflows/greet');
  await expect.poll(() => page.locator('[data-yaml]').textContent()).toContain('description: edited in the browser');
  expect(await readFile(join(home.paths.workflows, 'greet.yaml'), 'utf8')).toContain('edited in the browser');
  await page.close();
});

it('edits the workflow file’s own text: its comments and layout are there, and survive a save', async () => {
  const file = join(home.paths.workflows, 'commented.yaml');
  const before = await readFile(file, 'utf8');
  const page = await open('/workflows/commented/edit');
  const editor = page.locator('textarea[name="yaml"]');
  await expect.poll(() => editor.inputValue()).toBe(before);
  await expect.poll(() => page.locator('.workflow-edit-page p.muted').first().textContent()).toMatch(/^The file commented\.yaml of the home scope, as it is on disk/);

  // One line changed; every other line, comments included, is written back as it was.
  await editor.fill(before.replace('echo checked', 'echo checked twice'));
  await expect.poll(() => page.locator('[data-check-state]').getAttribute('data-check-state')).toBe('valid');
  expect(await page.locator('select[name="scope"]').inputValue()).toBe('global');
  await page.locator('[data-action="save"]').click();
  await page.waitForURL((url) => url.pathname === '/workflows/commented');
  expect(await readFile(file, 'utf8')).toBe(before.replace('echo checked', 'echo checked twice'));
  await expect.poll(() => page.locator('[data-yaml]').textContent()).toContain('echo checked twice');
  await page.close();

  // The route refuses a text that names another workflow, or none, and writes nothing.
  const put = (text: unknown) =>
    fetch(`${server.url}/api/workflows/commented/file?source=global`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  const other = await put('# mine\nname: other\ndescription: d\nnodes:\n  - id: a\n    bash: echo\n');
  expect(other.status).toBe(400);
  expect(((await other.json()) as { errors: string[] }).errors).toEqual([
    "The text declares name 'other', which does not match the name in the path 'commented'; make the two the same",
  ]);
  const unnamed = await put('description: d\nnodes:\n  - id: a\n    bash: echo\n');
  expect(((await unnamed.json()) as { errors: string[] }).errors).toEqual(["The text declares no name: add 'name: commented' to it"]);
  const notText = await put(42);
  expect(notText.status).toBe(400);
  expect(((await notText.json()) as { error: string }).error).toContain('text is required: send the workflow file’s YAML as a string');
  expect(await readFile(file, 'utf8')).toBe(before.replace('echo checked', 'echo checked twice'));
});

it('writes a new workflow into the project folder, and saves none without a folder for project scope', async () => {
  const page = await open('/new-workflow');
  const save = page.locator('[data-action="save"]');
  await expect.poll(() => page.locator('[data-check-state]').getAttribute('data-check-state')).toBe('valid');
  await page.locator('select[name="scope"]').selectOption('project');
  expect(await save.isDisabled()).toBe(true);
  expect(await page.locator('[data-save-blocked]').textContent()).toMatch(/^Saving to a project needs a project folder/);
  await page.close();

  const inProject = await open(`/workflows?cwd=${encodeURIComponent(project)}`);
  await inProject.locator('[data-action="new-workflow"]').click();
  const editor = inProject.locator('textarea[name="yaml"]');
  await editor.fill('name: made-here\ndescription: written from the dashboard\nnodes:\n  - id: a\n    bash: echo made\n');
  await expect.poll(() => inProject.locator('[data-check-state]').getAttribute('data-check-state')).toBe('valid');
  expect(await inProject.locator('select[name="scope"]').inputValue()).toBe('project');
  await inProject.locator('[data-action="save"]').click();
  await inProject.waitForURL((url) => url.pathname === '/workflows/made-here' && url.searchParams.get('cwd') === project);
  await expect.poll(() => inProject.locator('.workflow-page .muted').first().textContent()).toMatch(/^project · made-here\.yaml/);
  expect(await readFile(join(project, '.cairn', 'workflows', 'made-here.yaml'), 'utf8')).toContain('written from the dashboard');
  await inProject.close();
});
