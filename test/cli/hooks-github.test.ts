import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { CliContext, InputStream } from '../../src/terminal/context.js';
import { listen, makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { capture } from './cli-harness.js';

/**
 * `cairn hooks add` making a GitHub hook (docs/github.md), in this process against an in-process
 * API over a real database: the token comes from the environment variable named, never from the
 * command line, and is never printed; the --github-* flags reach the hook's settings.
 */

let home: TempHome;
let url: string;
beforeAll(async () => {
  home = await makeTempHome();
  await writeHomeWorkflow(home, 'triage', 'name: triage\ndescription: t\nnodes:\n  - id: a\n    bash: "true"\n');
  await writeHomeWorkflow(home, 'fix', 'name: fix\ndescription: f\nnodes:\n  - id: a\n    bash: "true"\n');
  url = await listen((await makeTestApp(home)).app);
});
afterAll(() => home.close());

async function cairn(argv: string[], env: NodeJS.ProcessEnv, secret = 'a-webhook-secret-0123456789') {
  const stdout = capture();
  const stderr = capture();
  const ctx: CliContext = {
    stdout, stderr, env: { CAIRN_URL: url, ...env }, cwd: home.home,
    stdin: Readable.from([secret]) as unknown as InputStream, onInterrupt: () => () => undefined,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

it('adds a GitHub hook with its token from the environment and its settings from the flags; the token is never printed', async () => {
  const token = 'github_pat_cli_0123456789';
  const made = await cairn(
    ['hooks', 'add', 'issues', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-token-env', 'GH_TOKEN',
      '--github-workflow', 'fix', '--github-label', 'cairn', '--github-label', 'ai', '--github-on-issue-opened', '--github-no-reply',
      '--github-api-url', 'https://ghe.example.com/api/v3'],
    { GH_TOKEN: token },
  );
  expect(made.stderr).toBe('');
  expect(made.code).toBe(0);
  expect(made.stdout).toBe(
    'Webhook issues: triage, github signature, inputs -.\n' +
      'GitHub: /cairn run triage, fix; labels cairn, ai; new issues; no reply to non-writers; https://ghe.example.com/api/v3; signs in with a token.\n' +
      'Deliveries: POST /api/hooks/issues\n',
  );
  const hook = await home.openStore().getHook('issues');
  expect(hook!.github).toEqual({
    api_url: 'https://ghe.example.com/api/v3', workflows: ['fix'], labels: ['cairn', 'ai'], on_issue_opened: true, deny_reply: false, dashboard_url: null, app: null,
  });
  expect(hook!.sealed_github_token).not.toContain(token);
  const json = await cairn(['hooks', 'list', '--json'], {});
  expect(json.stdout).not.toContain(token);

  const before = hook!.sealed_github_token;
  const replaced = await cairn(['hooks', 'github-token', 'issues', '--github-token-env', 'NEW_TOKEN'], { NEW_TOKEN: 'github_pat_rotated_0123' });
  expect([replaced.code, replaced.stdout, replaced.stderr]).toEqual([0, 'Replaced the GitHub token of webhook issues.\n', '']);
  const after = (await home.openStore().getHook('issues'))!.sealed_github_token;
  expect(after).not.toBe(before);
  expect(after).not.toContain('github_pat_rotated_0123');
  const missing = await cairn(['hooks', 'github-token', 'issues'], {});
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--github-token-env <var> is required');
});

it('refuses a GitHub flag without --github-token-env, and a token variable that is not set, before asking the server', async () => {
  const noToken = await cairn(['hooks', 'add', 'x', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-label', 'cairn'], {});
  expect(noToken.code).not.toBe(0);
  expect(noToken.stderr).toContain('--github-label makes a GitHub hook, which needs --github-token-env <var>');
  const unset = await cairn(['hooks', 'add', 'x', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-token-env', 'NOPE'], {});
  expect(unset.code).not.toBe(0);
  expect(unset.stderr).toContain('--github-token-env NOPE: the environment has no NOPE');
  expect(await home.openStore().getHook('x')).toBeUndefined();
});

it('adds a GitHub hook that signs in as an App, its private key read from the file named and never printed; refuses half an App', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const keyFile = join(home.home, 'app.pem');
  writeFileSync(keyFile, privateKey);
  const made = await cairn(
    ['hooks', 'add', 'as-app', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-app-id', '4242', '--github-installation-id', '77', '--github-private-key-file', 'app.pem'],
    {},
  );
  expect([made.code, made.stderr]).toEqual([0, '']);
  expect(made.stdout).toContain('GitHub: /cairn run triage; no labels; not new issues; replies to non-writers; https://api.github.com; signs in as App 4242 (installation 77).\n');
  const hook = (await home.openStore().getHook('as-app'))!;
  expect(hook.github!.app).toEqual({ app_id: 4242, installation_id: 77 });
  expect(hook.sealed_github_token).not.toContain('PRIVATE KEY');
  expect((await cairn(['hooks', 'list', '--json'], {})).stdout).not.toContain('PRIVATE KEY');

  const half = await cairn(['hooks', 'add', 'y', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-app-id', '4242'], {});
  expect([half.code, half.stderr]).toEqual([2, expect.stringContaining('--github-app-id signs the hook in as a GitHub App, which needs --github-installation-id too')]);
  const both = await cairn(['hooks', 'add', 'y', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-token-env', 'T', '--github-app-id', '1'], { T: 'x' });
  expect(both.stderr).toContain('--github-token-env and --github-app-id: a GitHub hook signs in with a token or as an App, not both');
  const badId = await cairn(['hooks', 'add', 'y', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-app-id', '12abc', '--github-installation-id', '7', '--github-private-key-file', 'app.pem'], {});
  expect(badId.stderr).toContain("--github-app-id '12abc' is not an id");
  const noFile = await cairn(['hooks', 'add', 'y', '--workflow', 'triage', '--signature', 'github', '--stdin', '--github-app-id', '1', '--github-installation-id', '7', '--github-private-key-file', 'gone.pem'], {});
  expect(noFile.stderr).toContain(`--github-private-key-file ${join(home.home, 'gone.pem')}: cannot read it (ENOENT)`);
  expect(await home.openStore().getHook('y')).toBeUndefined();
});
