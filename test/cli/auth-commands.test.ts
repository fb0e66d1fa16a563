import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openCredential } from '../../src/credentials/credential-seal.js';
import { loadInstallKey } from '../../src/shared/secrets/install-key.js';
import { oauthConfigYaml, startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runCliInProcess } from './cli-harness.js';
import { assertBuilt, userCliEnv } from './cli-process.js';
import { runCliWithStdin } from './cli-stdin.js';

/**
 * `cairn auth list|add|remove|login` through the built CLI against the real server, with a real
 * OAuth authorization server for the subscription logins. A key never shows in any output.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));

// One server, home and OAuth server for the file: no test restarts or reconfigures them, and
// each test acts as its own user, so no test sees another's credentials or runs.
let home: TempHome;
let server: RunningServer;
let auth: OAuthServer;
beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  auth = await startOAuthServer({ deviceInterval: 1 });
  home.defer(() => auth.close());
  await writeFile(home.paths.config, oauthConfigYaml(auth));
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});

const env = (extra: NodeJS.ProcessEnv = {}) => userCliEnv(home.home, { CAIRN_URL: server.url, ...extra });
const cli = (argv: string[], input?: string, extra: NodeJS.ProcessEnv = {}) =>
  runCliWithStdin(argv, { env: env(extra), cwd: home.home, ...(input !== undefined ? { input } : {}) });
const text = async (p: ReturnType<typeof cli>) => {
  const r = await p;
  return { code: r.code, stdout: r.stdout.toString(), stderr: r.stderr };
};

/** A key full of what a shell would act on: it must arrive as data, and never be printed. */
const KEY = `sk-ant-'$(touch pwned)"; rm -rf ~ ;\`id\` && echo $HOME`;

it('adds a key from stdin, lists it without the secret, removes it; the key never shows in any output', async () => {
  const outputs: string[] = [];
  const run = async (argv: string[], input?: string, extra?: NodeJS.ProcessEnv) => {
    const r = await text(cli(argv, input, extra));
    outputs.push(r.stdout, r.stderr);
    return r;
  };

  expect(await run(['auth', 'list', '--user', 'ann'])).toMatchObject({ code: 0 });
  expect(outputs[0]).toContain('No credentials for user ann. Connect a key with `cairn auth add <vendor>`.');

  const added = await run(['auth', 'add', 'anthropic', '--stdin', '--label', 'work', '--user', 'ann'], `${KEY}\n`);
  expect(added).toMatchObject({ code: 0, stdout: "Connected anthropic for user ann: api_key 'work'.\n" });
  // CAIRN_USER names the same user as --user.
  const list = await run(['auth', 'list'], undefined, { CAIRN_USER: 'ann' });
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^VENDOR\s+KIND\s+LABEL\nanthropic\s+api_key\s+work\n/);
  expect(list.stdout).toContain('Subscription logins (cairn auth login): anthropic, github-copilot, openai');
  expect((await run(['auth', 'list', '--json', '--user', 'ann'])).code).toBe(0);
  // Another user sees nothing of ann's.
  expect((await run(['auth', 'list', '--user', 'bob'])).stdout).toContain('No credentials for user bob.');

  expect(await run(['auth', 'remove', 'anthropic', '--user', 'ann'])).toMatchObject({
    code: 0,
    stdout: 'Disconnected anthropic for user ann (if it was connected).\n',
  });
  expect((await run(['auth', 'list', '--user', 'ann'])).stdout).toContain('No credentials for user ann.');

  for (const output of [...outputs, server.output()]) expect(output).not.toContain('touch pwned');
  expect(existsSync(join(home.home, 'pwned'))).toBe(false);
});

it('stores the key exactly as given, shell metacharacters and all, less the trailing newline', async () => {
  expect((await text(cli(['auth', 'add', 'openai', '--stdin', '--user', 'cora'], `${KEY}\n`))).code).toBe(0);
  const stored = await home.openStore().getCredential('cora', 'openai');
  expect(stored?.sealed_secret).not.toContain(KEY);
  const key = loadInstallKey({ env: {}, file: home.paths.installKey });
  expect(openCredential(key, stored!).secret).toBe(KEY);
});

it('refuses to take a key it cannot read safely, naming what to do (exit 2)', async () => {
  const noUser = await text(cli(['auth', 'add', 'anthropic', '--stdin'], KEY));
  expect(noUser.code).toBe(2);
  expect(noUser.stderr).toContain('pass --user <id> or set CAIRN_USER');
  // stdin is a pipe, not a terminal: no prompt without echo is possible, so --stdin is asked for.
  const noStdinFlag = await text(cli(['auth', 'add', 'anthropic', '--user', 'dee'], KEY));
  expect(noStdinFlag.code).toBe(2);
  expect(noStdinFlag.stderr).toContain('stdin is not a terminal, so the key cannot be asked for: pass --stdin');
  // A key on the command line is an extra argument, refused before anything is sent.
  const inArgv = await text(cli(['auth', 'add', 'anthropic', 'sk-in-argv', '--user', 'dee'], ''));
  expect(inArgv.code).toBe(2);
  expect(inArgv.stderr).toContain("Unexpected argument 'sk-in-argv'");
  const empty = await text(cli(['auth', 'add', 'anthropic', '--stdin', '--user', 'dee'], '\n'));
  expect(empty.code).toBe(2);
  expect(empty.stderr).toContain('The key is empty: nothing was sent.');
  const blankUser = await text(cli(['auth', 'list', '--user', '  ']));
  expect(blankUser.code).toBe(2);
  const hostileUser = await text(cli(['auth', 'list', '--user', 'dee\nX-Other: 1']));
  expect(hostileUser).toMatchObject({ code: 2 });
  expect(hostileUser.stderr).toContain('--user holds a character other than printable ASCII');
  for (const r of [noUser, noStdinFlag, empty]) expect(r.stdout + r.stderr).not.toContain('touch pwned');
  expect((await runCliInProcess(['auth', 'list', '--user', 'dee', '--url', server.url])).stdout).toContain('No credentials');
});

it("shows the server's refusal of an unknown vendor or one without a subscription login", async () => {
  const unknown = await text(cli(['auth', 'add', '../../etc', '--stdin', '--user', 'eve'], 'k'));
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('cairn: Unknown credential vendor "../../etc". Known: anthropic,');
  const noLogin = await text(cli(['auth', 'login', 'google', '--user', 'eve']));
  expect(noLogin.code).toBe(1);
  expect(noLogin.stderr).toBe(
    'cairn: Provider "google" does not support subscription login. Subscription providers: anthropic, github-copilot, openai.\n',
  );
});

it('logs in with a pasted code: prints the URL to open, reads the code from stdin, connects', async () => {
  let pasted = false;
  const result = await runCliWithStdin(['auth', 'login', 'anthropic', '--stdin', '--user', 'fay'], {
    env: env(),
    cwd: home.home,
    onStdout: (out, write) => {
      const url = /^ {2}(http\S+)$/m.exec(out)?.[1];
      if (!url || pasted) return;
      pasted = true;
      // What the browser does: open the URL, consent (implied by the server), land on the redirect.
      void fetch(url, { redirect: 'manual' }).then((res) => {
        const landed = new URL(res.headers.get('location')!);
        write(`${landed.searchParams.get('code')}#${landed.searchParams.get('state')}\n`);
      });
    },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout.toString()).toContain('Connected the anthropic subscription login for user fay.');
  const list = await text(cli(['auth', 'list', '--user', 'fay']));
  expect(list.stdout).toMatch(/^anthropic\s+oauth\s+/m);
  for (const token of auth.issued) expect(list.stdout + result.stdout.toString()).not.toContain(token);
});

it('logs in with a device code: prints the address and code, polls until the user approves', async () => {
  let approved = false;
  const result = await runCliWithStdin(['auth', 'login', 'github-copilot', '--user', 'gus'], {
    env: env(),
    cwd: home.home,
    onStdout: (out) => {
      const code = /enter the code (\S+)\./.exec(out)?.[1];
      if (!code || approved) return;
      approved = true;
      auth.approveDevice(code);
    },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout.toString()).toContain(`Open ${auth.url}`);
  expect(result.stdout.toString()).toContain('Connected the github-copilot subscription login for user gus.');
});

it('asks for the key on a terminal without echoing it', async () => {
  // script(1) gives the CLI a pseudo-terminal; the key is typed once the prompt is shown.
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(checkout, 'bin/cairn.js'))} auth add anthropic --user hal`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: env(), cwd: home.home, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let typed = false;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!typed && out.includes('API key for anthropic (not shown): ')) {
      typed = true;
      child.stdin.write('sk-typed-secret-4242\r');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(out).toContain("Connected anthropic for user hal: api_key 'Anthropic API key'.");
  expect(out).not.toContain('sk-typed-secret-4242');
  expect(code).toBe(0);
});

it('names CAIRN_USER to the server on every command, so a run started from the CLI is that user’s', async () => {
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: one node\nnodes:\n  - id: one\n    bash: echo hi\n');
  const started = await text(cli(['workflow', 'run', 'plain', '--json'], undefined, { CAIRN_USER: 'ivy' }));
  expect(started.code).toBe(0);
  const runId = (JSON.parse(started.stdout.split('\n')[0]!) as { runId: string }).runId;
  expect((await getRun(server.url, runId)).run.user_id).toBe('ivy');
  const bad = await text(cli(['run', 'list'], undefined, { CAIRN_USER: 'ivy\u0007' }));
  expect(bad).toMatchObject({ code: 2, stderr: 'cairn: CAIRN_USER holds a character other than printable ASCII, which a request header cannot carry.\n' });
});
