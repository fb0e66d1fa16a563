import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPidFile } from '../../src/launcher/run-dir.js';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
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

async function startHome(env: Record<string, string> = {}): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home, env);
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

/** A stand-in for the Anthropic API the shared server's AI nodes would call: a dry run must send it nothing. */
let messages: AnthropicServer;

describe('cairn workflow run against the real server', () => {
  beforeAll(async () => {
    messages = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'real answer' }] }));
    await startHome({ ANTHROPIC_BASE_URL: messages.url, ANTHROPIC_API_KEY: 'sk-ant-test' });
  });
  afterAll(async () => {
    await home.close();
    await messages.close();
  });

  describe('--dry-run', () => {
    /** The node kinds a dry run stands in for; `fetch` would write a file into the run's artifacts if it ran. */
    const dryRunYaml = `name: triage
description: a bash node, AI nodes, when conditions, an approval, a loop and a fan-out
provider: anthropic
model: claude-test
inputs:
  target: { required: true }
  mode: { default: safe }
nodes:
  - id: fetch
    bash: "touch $ARTIFACTS_DIR/fetched; echo $INPUTS.target"
  - id: classify
    depends_on: [fetch]
    prompt: "Classify $fetch.output for $INPUTS.target"
    output_format: { type: object, properties: { kind: { type: string } }, required: [kind] }
  - id: deploy
    depends_on: [classify]
    when: "$INPUTS.mode == 'prod'"
    bash: echo deploying
  - id: fix
    depends_on: [classify]
    when: "$classify.output.kind == 'bug'"
    model: large
    prompt: "Fix $INPUTS.target"
  - id: review
    depends_on: [fix]
    approval:
      message: "Ship the fix for $INPUTS.target?"
  - id: polish
    depends_on: [review]
    loop:
      prompt: "Polish it"
      until: DONE
      max_iterations: 3
  - id: each
    depends_on: [fetch]
    workflow: triage-item
    fan_out:
      items: $fetch.output
`;
    const child = 'name: triage-item\ndescription: one item\nnodes:\n  - id: one\n    bash: echo "$ARGUMENTS"\n';
    const hostile = (dir: string) => `$(touch '${join(dir, 'injected')}')`;

    /** Every path under the home: a dry run adds none (no run folder, no worktree, no artifact). */
    async function filesUnder(dir: string): Promise<string[]> {
      return (await readdir(dir, { recursive: true })).map(String).sort();
    }

    const dryRun = (name: string, body: unknown) =>
      fetch(`${server.url}/api/workflows/${name}/dry-run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('answers the trace of what a run would do, in order, and creates, runs and calls nothing', async () => {
      await writeHomeWorkflow(home, 'triage', dryRunYaml);
      await writeHomeWorkflow(home, 'triage-item', child);
      const runsBefore = await (await fetch(`${server.url}/api/workflows/runs`)).json();
      const filesBefore = await filesUnder(home.home);

      const res = await dryRun('triage', {
        inputs: { target: hostile(home.home) },
        tiers: { large: { provider: 'anthropic', model: 'claude-big' } },
      });
      expect(res.status).toBe(200);
      const trace = (await res.json()) as { nodes: Record<string, any>[]; inputs: Record<string, string>; counts: Record<string, number> };
      expect(trace.inputs).toEqual({ target: hostile(home.home), mode: 'safe' });
      const byId = new Map(trace.nodes.map((n) => [n.id, n]));
      expect(trace.nodes.map((n) => `${n.id}:${n.kind}:${n.decision}`)).toEqual([
        'fetch:bash:run',
        'classify:prompt:run',
        'deploy:bash:skip',
        'fix:prompt:conditional',
        'review:approval:conditional',
        'polish:loop:conditional',
        'each:workflow:run',
      ]);
      expect(trace.counts).toEqual({ run: 3, skip: 1, conditional: 3, fail: 0, not_reached: 0 });
      // Skipped with the reason a run gives; a when: on a stub output depends on the run.
      expect(byId.get('deploy')).toMatchObject({ dependsOn: ['classify'], reason: "when: $INPUTS.mode == 'prod' is false" });
      expect(byId.get('fix')!.reason).toBe("when: $classify.output.kind == 'bug' depends on a runtime value ($classify.output.kind)");
      expect(byId.get('review')!.reason).toBe("trigger rule all_success: runs only if 'fix' runs (it may be skipped at run time)");
      // The provider and model a run would bind: the workflow's, and the run request's tier.
      expect(byId.get('classify')!.model).toEqual({ provider: 'anthropic', model: 'claude-test', source: 'workflow' });
      expect(byId.get('fix')!.model).toEqual({ provider: 'anthropic', model: 'claude-big', source: 'node', preset: 'large' });
      // Inputs filled in as data, stub outputs marked.
      expect(byId.get('classify')).toMatchObject({ text: `Classify <dry-run output of fetch> for ${hostile(home.home)}`, stubbed: ['fetch'] });
      expect(byId.get('fetch')!.text).toContain(`echo ${hostile(home.home)}`);
      expect(byId.get('review')).toMatchObject({ text: `Ship the fix for ${hostile(home.home)}?`, detail: expect.stringContaining('a dry run takes it as approved') });
      expect(byId.get('polish')!.detail).toContain('one iteration; a real run repeats it up to 3 times');
      expect(byId.get('each')!.detail).toContain("fans out over the items of $fetch.output (a JSON array known only at run time): each item runs workflow 'triage-item'");

      // Nothing was created, run, spawned or called: no run, no file under the home (a run's
      // artifacts, worktrees and logs are there), not the one `fetch` writes, not the input's.
      expect(await (await fetch(`${server.url}/api/workflows/runs`)).json()).toEqual(runsBefore);
      expect(await filesUnder(home.home)).toEqual(filesBefore);
      expect(existsSync(join(home.home, 'injected'))).toBe(false);
      expect(messages.requests).toHaveLength(0);
    });

    it('refuses a missing required input with the error a run gets', async () => {
      await writeHomeWorkflow(home, 'triage', dryRunYaml);
      const dry = await dryRun('triage', {});
      const real = await fetch(`${server.url}/api/workflows/triage/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(dry.status).toBe(400);
      expect(await dry.json()).toEqual(await real.json());
    });

    it('prints the trace with --dry-run, and as one JSON object with --dry-run --json', async () => {
      await writeHomeWorkflow(home, 'triage', dryRunYaml);
      await writeHomeWorkflow(home, 'triage-item', child);
      const text = await cli('workflow', 'run', 'triage', '--dry-run', '--input', 'target=web', '--input', 'mode=prod');
      expect(text.code, text.stderr).toBe(0);
      // The example in docs/cli.md is this dry run, line for line.
      const cliDoc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
      expect(/```\n(Dry run of workflow triage:[\s\S]*?)```/.exec(cliDoc)?.[1]).toBe(text.stdout);
      const lines = text.stdout.split('\n');
      expect(lines[0]).toBe('Dry run of workflow triage: nothing was run, spent or created.');
      expect(lines.filter((l) => /^\S/.test(l)).slice(2, -1).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
        'run fetch', 'run classify', 'run deploy', 'maybe fix', 'maybe review', 'maybe polish', 'run each',
      ]);
      expect(text.stdout).toContain('    model: anthropic claude-test (from the workflow)\n    does: an AI call; a dry run calls no provider\n    text: Classify <dry-run output of fetch> for web\n');
      expect(text.stdout).toContain('4 would run, 0 skipped, 3 depend on runtime values, 0 would fail, 0 not reached.');

      const json = await cli('workflow', 'run', 'triage', '--dry-run', '--json', '--input', 'target=web');
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, workflow: 'triage', counts: { run: 3, skip: 1 } });
      expect(messages.requests).toHaveLength(0);
    });
  });

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
