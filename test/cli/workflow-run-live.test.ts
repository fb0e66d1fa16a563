import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPidFile } from '../../src/launcher/run-dir.js';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli, startCli, userCliEnv } from './cli-process.js';

// The home and server of the describe block running: one shared by the tests that only write
// their own workflows and start their own runs, a fresh one for the test that kills the API.
let home: TempHome;
let server: RunningServer;
beforeAll(assertBuilt);

async function startHome(): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home);
}

const cliEnv = () => userCliEnv(home.home);
const cli = (...argv: string[]) => runUserCli(home.home, argv);

const passing = `name: passing
description: two nodes, the second after the first
inputs:
  who:
    default: world
nodes:
  - id: greet
    bash: echo hello
  - id: shout
    depends_on: [greet]
    bash: echo HELLO
`;

const failing = `name: failing
description: a node that fails, one that is skipped because of it, and one that succeeds
nodes:
  - id: broken
    bash: "echo 'disk on fire' >&2; exit 3"
  - id: after
    depends_on: [broken]
    bash: echo never
  - id: fine
    bash: echo fine
`;

/** A workflow whose first node waits until the test creates `gate`. */
const gated = (gate: string) => `name: gated
description: waits for the test, then one more node
nodes:
  - id: wait
    bash: "while [ ! -f '${gate}' ]; do sleep 0.05; done; echo opened"
  - id: next
    depends_on: [wait]
    bash: echo next
`;

function runIdOf(stdout: string): string {
  const id = /^Run (\S+) of workflow/m.exec(stdout)?.[1];
  if (!id) throw new Error(`no run id in:\n${stdout}`);
  return id;
}

describe('cairn workflow run against the real server', () => {
  beforeAll(startHome);
  afterAll(() => home.close());

  it('shows each node starting and finishing and exits 0 when the run completes', async () => {
    await writeHomeWorkflow(home, 'passing', passing);
    const { code, stdout, stderr } = await cli('workflow', 'run', 'passing', '--input', 'who=cairn');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.filter((l) => /^(started|done)\s/.test(l)).map((l) => l.replace(/ \(.*\)$/, ''))).toEqual([
      'started  greet',
      'done     greet',
      'started  shout',
      'done     shout',
    ]);
    const runId = runIdOf(stdout);
    expect(stdout).toMatch(new RegExp(`^Run ${runId} completed in `, 'm'));
    // What the run produced: the output of the node that finished last.
    expect(stdout).toContain('Output of shout:\n  HELLO\n');
    const { run } = await getRun(server.url, runId);
    expect(run.status).toBe('completed');
    expect(run.inputs).toMatchObject({ who: 'cairn' });

    const cancel = await cli('run', 'cancel', runId);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain("Cannot cancel workflow in 'completed' status");
  });

  it('prints every completed node\'s output with --output all, and none with --output none', async () => {
    await writeHomeWorkflow(home, 'passing', passing);
    const all = await cli('workflow', 'run', 'passing', '--output', 'all');
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('Output of greet:\n  hello\nOutput of shout:\n  HELLO\n');
    const none = await cli('workflow', 'run', 'passing', '--output', 'none');
    expect(none.code).toBe(0);
    expect(none.stdout).not.toContain('Output of');
    const bad = await cli('workflow', 'run', 'passing', '--output', 'some');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--output must be one of last, all, none, not 'some'");
  });

  it('prints the start response and then one stream event per line with --json', async () => {
    await writeHomeWorkflow(home, 'passing', passing);
    const { code, stdout } = await cli('workflow', 'run', 'passing', '--json');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ accepted: true, status: 'pending' });
    const runId = lines[0]!.runId;
    expect(lines.slice(1).every((l) => l.runId === runId && typeof l.seq === 'number')).toBe(true);
    expect(lines.filter((l) => l.type === 'dag_node').map((l) => `${l.nodeId}:${l.status}`)).toEqual([
      'greet:running',
      'greet:completed',
      'shout:running',
      'shout:completed',
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'workflow_status', status: 'completed' });
  });

  it('says when a run does not exist', async () => {
    const { code, stderr } = await cli('run', 'get', 'no-such-run');
    expect(code).toBe(1);
    expect(stderr).toContain('Workflow run not found');
  });

  it('exits 1 for a failing run, printing the failure, the skipped node, the error and how to inspect it', async () => {
    await writeHomeWorkflow(home, 'failing', failing);
    const { code, stdout, stderr } = await cli('workflow', 'run', 'failing');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^failed\s+broken \(.+\): .*disk on fire/m);
    expect(stdout).toMatch(/^skipped\s+after/m);
    expect(stdout).toMatch(/^done\s+fine/m);
    const runId = runIdOf(stdout);
    expect(stderr).toContain(`Run ${runId} failed: `);
    expect(stderr).toContain(`Inspect it with: cairn run get ${runId}`);

    const detail = await cli('run', 'get', runId);
    expect(detail.code).toBe(0);
    expect(detail.stdout).toMatch(/^Status\s+failed$/m);
    expect(detail.stdout).toMatch(/^broken\s+failed\s+\S+\s+.*disk on fire/m);
    expect(detail.stdout).toMatch(/^after\s+skipped\s+\S*\s*\S+/m);
    expect(detail.stdout).toMatch(/^fine\s+completed\s/m);

    // This is the only test of the shared server whose run fails: the others' runs (completed,
    // cancelled) must not be listed.
    const list = await cli('run', 'list', '--status', 'failed', '--json');
    expect((JSON.parse(list.stdout) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual([runId]);
  });

  it('refuses an unknown workflow with the server message and exit 1', async () => {
    const { code, stderr } = await cli('workflow', 'run', 'nowhere');
    expect(code).toBe(1);
    expect(stderr).toContain('Workflow not found: nowhere');
  });

  it('cancels the run on Ctrl-C and exits 130', async () => {
    const gate = join(home.home, 'gate-never');
    await writeHomeWorkflow(home, 'gated', gated(gate));
    const follow = startCli(['workflow', 'run', 'gated'], { env: cliEnv(), cwd: home.home });
    await waitFor(() => /^started\s+wait$/m.test(follow.stdout()), { what: 'the node to start' });
    const runId = runIdOf(follow.stdout());
    follow.child.kill('SIGINT');
    expect(await follow.exited).toBe(130);
    expect(follow.stderr()).toContain(`Interrupted: cancelling run ${runId}`);
    await waitFor(async () => (await getRun(server.url, runId)).run.status === 'cancelled', { what: 'the run to be cancelled' });
  });

});

describe('cairn workflow run across a restart of the API process (own server: the test kills the API)', () => {
  beforeEach(startHome);
  afterEach(() => home.close());

  it('keeps following across a restart of the API process, missing and repeating nothing', async () => {
    const gate = join(home.home, 'gate');
    await writeHomeWorkflow(home, 'gated', gated(gate));
    const follow = startCli(['workflow', 'run', 'gated'], { env: cliEnv(), cwd: home.home });
    await waitFor(() => /^started\s+wait$/m.test(follow.stdout()), { what: 'the node to start' });

    const apiPid = await server.pid('api');
    process.kill(apiPid, 'SIGKILL');
    await waitFor(() => {
      const pid = readPidFile(home.paths.apiPid);
      return pid !== undefined && pid !== apiPid && isProcessAlive(pid);
    }, { what: 'the API to be restarted' });
    await writeFile(gate, '');

    expect(await follow.exited).toBe(0);
    const nodeLines = follow.stdout().split('\n').filter((l) => /^(started|done)\s/.test(l)).map((l) => l.replace(/ \(.*\)$/, ''));
    expect(nodeLines).toEqual(['started  wait', 'done     wait', 'started  next', 'done     next']);
  });
});
