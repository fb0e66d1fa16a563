import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedClaudeServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli, startCli, userCliEnv } from './cli-process.js';
import { docLines, docTranscript, normalise } from './doc-transcripts.js';

// The home (and scratch directory) of the describe block running: one home and server shared
// by the bash-node tests, a fresh one for the AI-node test, whose server runs with the Claude
// CLI's environment.
let home: TempHome;
let scratch: string;
let messages: AnthropicServer | undefined;
beforeAll(assertBuilt);
async function openHome(): Promise<void> {
  home = await makeTempHome();
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'cairn-logs-follow-')));
  home.defer(() => rm(scratch, { recursive: true, force: true }));
}

const cli = (...argv: string[]) => runUserCli(home.home, argv);

describe('run logs --follow of bash nodes (one server)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    await openHome();
    server = await startServer(home);
  });
  afterAll(() => home.close());

  it('run logs --follow prints each attempt\'s output as it ends, while the run goes on, and exits 0 when it completes', async () => {
    const open = join(scratch, 'open-two-steps');
    await writeHomeWorkflow(home, 'two-steps', `name: two-steps
description: one node, then one that waits for the test
nodes:
  - id: one
    bash: "echo first line; echo a warning >&2"
  - id: two
    depends_on: [one]
    bash: "while [ ! -f '${open}' ]; do sleep 0.05; done; echo second line"
`);
    const { runId } = await startRun(server.url, 'two-steps');
    // As docs/cli.md shows it.
    const [shown] = docTranscript('cairn run logs', 'cairn run logs 7f3c1a2b --follow');
    const argv = shown!.command.replace('7f3c1a2b', runId.slice(0, 8)).split(' ').slice(1);
    const follow = startCli(argv, { env: userCliEnv(home.home), cwd: home.home });
    await waitFor(() => follow.stdout().includes('started  two'), { what: 'logs --follow to show two started' });
    const before = follow.stdout();
    expect(before).toMatch(/^started  one\n== one \(attempt [0-9a-f]{8}\) completed\n-- stdout \(10 bytes\)\nfirst line\n-- stderr \(10 bytes\)\na warning\nstarted  two\n$/);
    await writeFile(open, '');
    expect(await follow.exited).toBe(0);
    expect(follow.stderr()).toBe('');
    expect(follow.stdout().slice(before.length)).toMatch(/^== two \(attempt [0-9a-f]{8}\) completed\n-- stdout \(11 bytes\)\nsecond line\nRun \S+ completed\.\n$/);
    expect(normalise(follow.stdout(), runId)).toEqual(docLines(shown!));

    const bad = await cli('run', 'logs', runId, '--follow', '--json');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--follow prints lines as they come; it does not go with --json.');
  });

  it('run logs --follow tails a bash node while it runs: its lines as they come, then only the rest when it ends', async () => {
    const open = join(scratch, 'open-slow');
    await writeHomeWorkflow(home, 'slow', `name: slow
description: prints, waits for the test, prints again
nodes:
  - id: slow
    bash: "echo building step 1; echo warming up >&2; while [ ! -f '${open}' ]; do sleep 0.05; done; echo done; printf tail"
`);
    const { runId } = await startRun(server.url, 'slow');
    const follow = startCli(['run', 'logs', runId, '--follow'], { env: userCliEnv(home.home), cwd: home.home });
    // Shown while the node still waits: nothing has ended yet.
    // (stdout and stderr are two pipes: which of their lines comes first is not fixed.)
    await waitFor(() => follow.stdout().includes('slow | warming up') && follow.stdout().includes('slow | building step 1'), {
      what: 'the running node\'s lines', timeoutMs: 15_000,
    });
    expect(follow.stdout().split('\n').sort()).toEqual(['', 'slow | building step 1', 'slow | warming up', 'started  slow']);
    await writeFile(open, '');
    expect(await follow.exited).toBe(0);
    expect(follow.stdout()).toMatch(
      /^started  slow\n(slow \| building step 1\nslow \| warming up|slow \| warming up\nslow \| building step 1)\n== slow \(attempt [0-9a-f]{8}\) completed\n-- stdout \(25 bytes; the first 16 shown above as it ran\)\ndone\ntail\n-- stderr \(11 bytes; the first 11 shown above as it ran\)\nRun \S+ completed\.\n$/,
    );
    // The live lines are node_output events, between the node's start and its end.
    const events = ((await (await fetch(`${server.url}/api/workflows/runs/${runId}`)).json()) as { events: { event_type: string; step_name: string | null; data: { stream?: string; text?: string } }[] }).events;
    const own = events.filter((e) => e.step_name === 'slow');
    expect(own[0]!.event_type).toBe('node_started');
    expect(own.at(-1)!.event_type).toBe('node_completed');
    expect(own.filter((e) => e.event_type === 'node_output').map((e) => `${e.data.stream}: ${e.data.text}`).sort()).toEqual([
      'stderr: warming up\n',
      'stdout: building step 1\n',
    ]);
  });
});

describe('run logs --follow of an AI node (own server: it runs with the Claude CLI\'s environment)', () => {
  beforeEach(openHome);
  afterEach(async () => {
    await home.close();
    await messages?.close();
    messages = undefined;
  });

  it('an AI node\'s tool calls: a line each in run logs --follow, and their counts in run get', async () => {
    messages = await startScriptedClaudeServer([
      {
        match: /LOOK-TASK/,
        steps: [
          { tool: 'read', path: 'notes.txt' },
          { tool: 'read', path: 'missing.txt' },
          { tool: 'write', path: 'notes.txt', content: 'overwritten\n' },
          { say: 'looked' },
        ],
      },
    ]);
    const project = join(scratch, 'project');
    await (await import('node:fs/promises')).mkdir(project);
    await writeFile(join(project, 'notes.txt'), 'some notes\n');
    await startServer(home, { ...claudeCliEnv(messages.url, join(scratch, 'cli-home')), CLAUDE_BIN_PATH: pinnedClaudeCli });
    await writeHomeWorkflow(home, 'look', `name: look
description: a read-only Claude node that reads, misses, and is refused a write
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: look
    permissions: read_only
    prompt: "LOOK-TASK: read notes.txt"
  - id: after
    depends_on: [look]
    bash: echo after
`);
    const run = await cli('workflow', 'run', 'look', '--cwd', project);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const runId = /^Run (\S+) of workflow look started/m.exec(run.stdout)![1]!;

    const got = await cli('run', 'get', runId);
    expect(got.code).toBe(0);
    const lines = got.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('NODE'))).toMatch(/^NODE\s+STATUS\s+DURATION\s+TOOLS\s+DETAIL$/);
    expect(lines.find((l) => l.startsWith('look '))).toMatch(/^look\s+completed\s+\S+\s+3 tool calls \(1 failed, 1 refused\)/);
    expect(lines.find((l) => l.startsWith('after '))).toMatch(/^after\s+completed\s+\S+\s*$/);
    // The table docs/cli.md shows under cairn run get, cell by cell (durations differ from run to run).
    const cells = (line: string) => line.trim().split(/\s{2,}/).map((c) => (/^\d+(\.\d+)?(ms|s)$/.test(c) ? '<duration>' : c));
    const doc = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
    const table = [...doc.split('\n## cairn run get\n')[1]!.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith('NODE'))!;
    const shownTable = lines.slice(lines.findIndex((l) => l.startsWith('NODE'))).filter(Boolean);
    expect(shownTable.map(cells)).toEqual(table.trim().split('\n').map(cells));

    const [shown] = docTranscript('cairn run logs', 'cairn run logs 7f3c1a2b --follow --node look');
    const logs = await cli(...shown!.command.replace('7f3c1a2b', runId.slice(0, 8)).split(' ').slice(1));
    expect(logs.code).toBe(0);
    expect(normalise(logs.stdout, runId, { [project]: '/home/me/project' })).toEqual(docLines(shown!));
    const toolLines = logs.stdout.split('\n').filter((l) => /^(called|ok|error|refused)\s/.test(l));
    expect(toolLines).toEqual([
      `called   look Read ${join(project, 'notes.txt')}`,
      'ok       look Read',
      `called   look Read ${join(project, 'missing.txt')}`,
      'error    look Read',
      `called   look Write ${join(project, 'notes.txt')}`,
      'refused  look Write',
    ]);
    expect(logs.stdout).not.toContain('after');
  });
});
