import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cloneLocally, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { oauthConfigYaml, startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeFlakyItemWorkflow, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, userCliEnv } from './cli-process.js';
import { runCliWithStdin } from './cli-stdin.js';

/**
 * The examples of docs/cli.md's sections for `run artifacts`, `run retry-items`, `worktree list`,
 * `config` and `auth`, run line by line through the built CLI against a real server: each exits 0.
 * The run ids the examples show (6f1e2d3c, 9a8b7c6d) stand for runs made here.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));
const sections = ['cairn run artifacts', 'cairn run retry-items', 'cairn worktree list', 'cairn config get / set / unset', 'cairn auth list / add / remove / login'];

function examples(): { section: string; lines: string[] }[] {
  const doc = readFileSync(join(checkout, 'docs/cli.md'), 'utf8');
  return sections.map((title) => {
    const body = doc.split(`\n## ${title}\n`)[1]?.split('\n## ')[0];
    if (!body) throw new Error(`docs/cli.md lost its section ## ${title}`);
    const lines = [...body.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n').filter(Boolean));
    return { section: title, lines };
  });
}

let home: TempHome;
let root: string;
let server: RunningServer;
let auth: OAuthServer;
beforeEach(async () => {
  assertBuilt();
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-cli-docs-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  auth = await startOAuthServer({ deviceInterval: 1 });
  home.defer(() => auth.close());
  await writeFile(home.paths.config, oauthConfigYaml(auth));
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  server = await startServer(home);
  const res = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }),
  });
  expect(res.status).toBeLessThan(300);
});
afterEach(async () => {
  await home.close();
});

async function waitForEnd(runId: string): Promise<void> {
  await waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(run.status as string) ? true : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 45_000 });
}

it('runs every example of the sections, each exiting 0', async () => {
  // The run of `cairn run artifacts 6f1e2d3c`: a text file and a binary one, on the codebase.
  await writeHomeWorkflow(home, 'writer', `name: writer
description: writes artifacts
nodes:
  - id: write
    bash: 'printf "# Report\\n" > "$ARTIFACTS_DIR/report.md"; printf "a\\000b" > "$ARTIFACTS_DIR/blob.bin"'
`);
  const writer = await startRun(server.url, 'writer', { codebaseId: 'acme/widget' });
  // The run of `cairn run retry-items 9a8b7c6d each`: a fan-out whose bad item fails until fixed.
  await writeFlakyItemWorkflow(home, root);
  await writeHomeWorkflow(home, 'batch', `name: batch
description: a fan-out with a bad item
nodes:
  - id: each
    workflow: flaky
    fan_out: { items: '["a","bad1"]', join: all_done, mode: in_run }
`);
  const batch = await startRun(server.url, 'batch');
  await waitForEnd(writer.runId);
  await waitForEnd(batch.runId);
  await writeFile(join(root, 'fixed'), '');
  await writeFile(join(root, 'anthropic.key'), 'sk-ant-example\n');

  const env: NodeJS.ProcessEnv = userCliEnv(home.home, { CAIRN_URL: server.url });
  for (const { section, lines } of examples()) {
    expect(lines.length, section).toBeGreaterThan(0);
    for (const line of lines) {
      const code = line.split(/\s+#\s/)[0]!.trim();
      const exported = /^export (\w+)=(\S+)$/.exec(code);
      if (exported) {
        env[exported[1]!] = exported[2]!;
        continue;
      }
      const words = code.replace(/6f1e2d3c/g, writer.runId.slice(0, 8)).replace(/9a8b7c6d/g, batch.runId.slice(0, 8)).split(/\s+/);
      expect(words[0], line).toBe('cairn');
      const input = words.indexOf('<');
      const inputFile = input === -1 ? undefined : words.splice(input, 2)[1]!;
      const output = words.indexOf('>');
      const outputFile = output === -1 ? undefined : words.splice(output, 2)[1]!;
      let approved = false;
      const result = await runCliWithStdin(words.slice(1), {
        env,
        cwd: root,
        ...(inputFile ? { input: await readFile(join(root, inputFile), 'utf8') } : {}),
        ...(words.includes('login')
          ? {
              onStdout: (out: string) => {
                const userCode = /enter the code (\S+)\./.exec(out)?.[1];
                if (userCode && !approved) {
                  approved = true;
                  auth.approveDevice(userCode);
                }
              },
            }
          : {}),
      });
      expect(result.stderr, line).toBe('');
      expect(result.code, line).toBe(0);
      if (outputFile) await writeFile(join(root, outputFile), result.stdout);
      expect(result.stdout.toString()).not.toContain('sk-ant-example');
    }
  }
  expect(await readFile(join(root, 'blob.bin'))).toEqual(Buffer.from('a\0b'));
});
