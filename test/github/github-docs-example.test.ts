import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listen, makeTestApp } from '../helpers/app.js';
import { startGitHubApi, type GitHubApi } from '../helpers/github-api.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * docs/github.md's worked example, "an issue comment that starts a run", as written: its
 * workflow file, its hook (pointed at a local GitHub stand-in instead of api.github.com, with a
 * real token and secret in place of the placeholders), its signed delivery, the answer, the run's
 * inputs and the status comment it ends with, character for character.
 */

const doc = readFileSync(fileURLToPath(new URL('../../docs/github.md', import.meta.url)), 'utf8');
const example = doc.split('\n## A worked example: an issue comment that starts a run\n')[1]!.split('\n## ')[0]!;
const blocks = (lang: string) => [...example.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
const statusShown = /^~~~markdown\n([\s\S]*?)^~~~$/m.exec(example)![1]!;

const SECRET = 'docs-example-secret-0123456789abcdef';
const TOKEN = 'github_pat_docs_example_token';

let home: TempHome;
let gh: GitHubApi;
let url: string;
beforeAll(async () => {
  home = await makeTempHome();
  gh = await startGitHubApi({ token: TOKEN, login: 'cairn-bot', permissions: { alice: 'write' } });
  home.defer(() => gh.close());
  await startSupervisor(home);
  url = await listen((await makeTestApp(home)).app);
}, 60_000);
afterAll(() => home.close());

it('runs docs/github.md’s worked example as written', async () => {
  const [workflowYaml] = blocks('yaml');
  const [hookBody, hookAnswer, payload, answer] = blocks('json').map((b) => b.trim());
  const name = /^name: (\S+)$/m.exec(workflowYaml!)![1]!;
  await writeHomeWorkflow(home, name, workflowYaml!);

  const body = JSON.parse(hookBody!);
  body.secret = SECRET;
  body.github.token = TOKEN;
  body.github.apiUrl = gh.url;
  const made = await fetch(`${url}/api/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(made.status).toBe(201);
  const shown = JSON.parse(hookAnswer!);
  shown.github.api_url = gh.url;
  expect(await made.json()).toMatchObject(shown);

  // The comment the example shows is the one in the payload.
  const comment = /On issue #42[\s\S]*?```\n(.*)\n```/.exec(example)![1]!;
  expect(JSON.parse(payload!).comment.body).toBe(comment);
  gh.comments.set(42, [{ id: 1001, user: { login: 'alice', type: 'User' }, body: comment, created_at: '2026-06-01T12:00:00Z' }]);
  const raw = payload!;
  const res = await fetch(`${url}/api/hooks/${body.name}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': 'doc-delivery-1',
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
    },
    body: raw,
  });
  expect(res.status).toBe(202);
  const got = (await res.json()) as { runId: string; deliveryId: string };
  expect(JSON.stringify(got)).toBe(answer!.replace('<run id>', got.runId).replace('<delivery id>', 'doc-delivery-1'));

  const expected = statusShown
    .replace(/\n$/, '')
    .replaceAll('<run id, 8 characters>', got.runId.slice(0, 8))
    .replaceAll('<run id>', got.runId);
  const final = await waitFor(() => gh.comments.get(42)?.find((c) => c.body.includes('✅ completed'))?.body, { what: 'the final status comment' });
  expect(final).toBe(expected);
  expect(gh.sent(/\/issues\/comments\/1001\/reactions$/).map((r) => r.body)).toEqual([{ content: 'eyes' }]);

  const { inputs } = (await home.openStore().getRun(got.runId))!;
  expect(inputs).toEqual({ github_number: '42', github_title: 'Crash on start', github_args: 'check the stack trace' });
});
