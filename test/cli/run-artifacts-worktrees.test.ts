import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cloneLocally, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { capture, runCliInProcess } from './cli-harness.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';
import { runCliWithStdin } from './cli-stdin.js';

/**
 * `cairn run artifacts` and `cairn worktree list` through the built CLI: real runs on a real git
 * repository registered as a codebase (acme/widget), each in a worktree of its own.
 */

let home: TempHome;
let root: string;
let server: RunningServer;
const codebaseId = 'acme/widget';

/** A fresh home and server with acme/widget registered. */
async function openHome(): Promise<void> {
  assertBuilt();
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-cli-art-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  server = await startServer(home);
  const res = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }),
  });
  expect(res.status).toBeLessThan(300);
}

const env = () => userCliEnv(home.home, { CAIRN_URL: server.url });
const cli = (argv: string[]) => runCli(argv, { env: env(), cwd: home.home });

async function waitForStatus(runId: string, statuses: string[]): Promise<Record<string, any>> {
  return waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    return statuses.includes(run.status as string) ? run : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs: 45_000 });
}

/** Bytes 0..255 twice: NULs and all, what no text decoding would keep. */
const BINARY = Buffer.from([...Array(512).keys()].map((i) => i % 256));

const writerWorkflow = `name: writer
description: writes a report, a nested file and a binary file into its artifacts; its verdict is kept by output_type
nodes:
  - id: write
    bash: 'printf "# Report\\nall good\\n" > "$ARTIFACTS_DIR/report.md"; mkdir -p "$ARTIFACTS_DIR/logs"; printf "line\\n" > "$ARTIFACTS_DIR/logs/build log.txt"; head -c 512 "$BLOB" > "$ARTIFACTS_DIR/blob.bin"'
  - id: verdict
    depends_on: [write]
    bash: printf approved
    output_type: verdict
`;

describe('cairn run artifacts (one server: each test reads only its own run)', () => {
  beforeAll(openHome);
  afterAll(() => home.close());

  it('lists a run’s artifacts by an id prefix, prints one byte for byte, and refuses names that leave the folder', async () => {
    const blob = join(root, 'blob-source');
    await writeFile(blob, BINARY);
    await writeHomeWorkflow(home, 'writer', writerWorkflow.replace('"$BLOB"', `"${blob}"`));
    const { runId } = await startRun(server.url, 'writer', { codebaseId });
    expect((await waitForStatus(runId, ['completed', 'failed'])).status).toBe('completed');

    const list = await cli(['run', 'artifacts', runId.slice(0, 8)]);
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PATH\s+SIZE\s+MODIFIED$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['blob.bin', '512'],
      ['logs/build log.txt', '5'],
      ['nodes/verdict.md', '8'],
      ['nodes/verdict.meta.json', expect.stringMatching(/^\d+$/)],
      ['report.md', '18'],
    ]);
    const json = JSON.parse((await cli(['run', 'artifacts', runId, '--json'])).stdout) as { files: { path: string }[] };
    expect(json.files.map((f) => f.path)).toEqual(['blob.bin', 'logs/build log.txt', 'nodes/verdict.md', 'nodes/verdict.meta.json', 'report.md']);
    // A node's output_type files are served like any artifact.
    const verdict = await fetch(`${server.url}/api/artifacts/${runId}/nodes/verdict.meta.json`).then((r) => r.json());
    expect(verdict).toEqual({ outputType: 'verdict', runId, producedAt: expect.any(String), size: 8 });
    expect(await fetch(`${server.url}/api/artifacts/${runId}/nodes/verdict.md`).then((r) => r.text())).toBe('approved');

    expect(await cli(['run', 'artifacts', runId, 'report.md'])).toMatchObject({ code: 0, stdout: '# Report\nall good\n', stderr: '' });
    expect(await cli(['run', 'artifacts', runId, 'logs/build log.txt'])).toMatchObject({ code: 0, stdout: 'line\n' });
    // Into a pipe, binary bytes go out as they are.
    const bytes = await runCliWithStdin(['run', 'artifacts', runId, 'blob.bin'], { env: env(), cwd: home.home });
    expect(bytes.code).toBe(0);
    expect(bytes.stdout.equals(BINARY)).toBe(true);

    // On a terminal, binary is refused unless --force; text is printed.
    const tty = capture();
    tty.isTTY = true;
    const refused = await runCliInProcess(['run', 'artifacts', runId, 'blob.bin', '--url', server.url], { stdout: tty });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain("'blob.bin' is binary and stdout is a terminal");
    expect(refused.stderr).toContain('pass --force to print it anyway');
    const forced = capture();
    forced.isTTY = true;
    const chunks: Buffer[] = [];
    forced.write = (chunk: string | Uint8Array) => chunks.push(Buffer.from(chunk));
    expect((await runCliInProcess(['run', 'artifacts', runId, 'blob.bin', '--force', '--url', server.url], { stdout: forced })).code).toBe(0);
    expect(Buffer.concat(chunks).equals(BINARY)).toBe(true);
    const text = capture();
    text.isTTY = true;
    expect(await runCliInProcess(['run', 'artifacts', runId, 'report.md', '--url', server.url], { stdout: text })).toMatchObject({ code: 0 });
    expect(text.text).toBe('# Report\nall good\n');

    for (const name of ['../../../etc/passwd', 'logs/../report.md', '/etc/passwd', './report.md', 'logs\\x']) {
      const bad = await cli(['run', 'artifacts', runId, name]);
      expect(bad.code, name).toBe(2);
      expect(bad.stderr, name).toContain(`'${name}' is not an artifact name`);
      expect(bad.stdout, name).toBe('');
    }
    const missing = await cli(['run', 'artifacts', runId, 'nope.txt']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe(`cairn: Artifact not found: nope.txt. \`cairn run artifacts ${runId}\` lists the run's artifacts.\n`);
  });

  it('says a run without a codebase lists no artifacts, and points at run list for an unknown run', async () => {
    await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: no codebase\nnodes:\n  - id: one\n    bash: echo hi > "$ARTIFACTS_DIR/x.txt"\n');
    const { runId } = await startRun(server.url, 'plain');
    await waitForStatus(runId, ['completed']);
    const none = await cli(['run', 'artifacts', runId]);
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toContain(`Run ${runId} has no artifacts to list.`);
    const unknown = await cli(['run', 'artifacts', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('`cairn run list`');
  });
});

describe('cairn worktree list (own server: it lists every worktree, and expects none but its run\'s)', () => {
  beforeEach(openHome);
  afterEach(() => home.close());

  it('lists the worktrees of runs with their run, branch, status and path; a working run shows as in use', async () => {
    expect((await cli(['worktree', 'list'])).stdout).toBe(
      'No worktrees yet. A run on a registered codebase makes one (`cairn workflow run <name> --codebase <id>`).\n',
    );
    const gate = join(root, 'gate');
    await writeHomeWorkflow(home, 'hold', `name: hold
description: waits for a gate
nodes:
  - id: hold
    bash: "touch started; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo held"
`);
    const { runId } = await startRun(server.url, 'hold', { codebaseId });
    const running = await waitFor(async () => {
      const { run } = await getRun(server.url, runId);
      return run.status === 'running' && run.working_path && existsSync(join(run.working_path as string, 'started')) ? run : undefined;
    }, { what: 'the run to hold its worktree', timeoutMs: 45_000 });

    const held = await cli(['worktree', 'list']);
    expect(held.code).toBe(0);
    const [header, row] = held.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^CODEBASE\s+RUN\s+BRANCH\s+KIND\s+STATUS\s+CHANGED\s+PATH$/);
    expect(row).toContain(`acme/widget  ${runId}  `);
    expect(row).toContain(`worktree  in use by run ${runId}  `);
    expect(row!.endsWith(`  ${running.working_path as string}`)).toBe(true);
    const envs = JSON.parse((await cli(['worktree', 'list', '--codebase', codebaseId, '--json'])).stdout) as { environments: Record<string, unknown>[] };
    expect(envs.environments).toHaveLength(1);
    expect(envs.environments[0]).toMatchObject({ workflow_id: runId, locked_by_run: runId, working_path: running.working_path });
    const branch = envs.environments[0]!.branch_name as string;
    expect(row).toContain(`  ${branch}  `);

    // While the run works in it, it cannot be removed.
    const busy = await cli(['worktree', 'remove', runId.slice(0, 8)]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`is in use: run ${runId} is working in it`);
    expect(existsSync(running.working_path as string)).toBe(true);

    await writeFile(gate, '');
    await waitForStatus(runId, ['completed']);
    const after = await cli(['worktree', 'list']);
    expect(after.stdout.split('\n')[1]).toMatch(/\sworktree\s+active\s/);

    // Once the run ended: removed from disk and from the list, by a run-id prefix; its branch stays.
    const removed = await cli(['worktree', 'remove', runId.slice(0, 8)]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed the worktree of acme/widget at ${running.working_path as string}.`);
    expect(existsSync(running.working_path as string)).toBe(false);
    expect((await cli(['worktree', 'list'])).stdout).toContain('No worktrees yet.');
    const branches = execFileSync('git', ['branch', '--list', branch], { cwd: join(root, 'widget'), encoding: 'utf8' });
    expect(branches.trim()).toContain(branch);
    const again = await cli(['worktree', 'remove', runId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`No worktree is named '${runId}'`);

    const unknown = await cli(['worktree', 'list', '--codebase', 'nobody/nothing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('cairn: Codebase not found: nobody/nothing. List the registered ones with `cairn codebase list`.\n');
  });
});
