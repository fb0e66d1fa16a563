import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli } from './cli-process.js';

// One server for the file: each test answers only the run it started.
let home: TempHome;
let server: RunningServer;
beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});

const cli = (...argv: string[]) => runUserCli(home.home, argv);

const gated = `name: gated
description: a gate, then the work
nodes:
  - id: review
    approval:
      message: "Ship it?"
      capture_response: true
  - id: work
    depends_on: [review]
    bash: 'printf "%s" "$review.output"'
`;

it('workflow run stops at a paused gate and prints the exact command that approves it; run approve continues the run', async () => {
  await writeHomeWorkflow(home, 'gated', gated);
  const started = await cli('workflow', 'run', 'gated');
  expect(started.code).toBe(3);
  const runId = /Run (\S+) of workflow gated started/.exec(started.stdout)?.[1];
  expect(runId).toBeDefined();
  expect(started.stdout).toContain(`Run ${runId} is paused: Approval required at 'review': Ship it?`);
  const approveLine = started.stdout.split('\n').find((l) => l.startsWith('Approve it with:'))!;
  expect(approveLine).toContain(`cairn run approve ${runId} --comment`);

  const hostile = `it's "fine" $(touch pwned)\nsecond line`;
  const approved = await cli('run', 'approve', runId!, '--comment', hostile);
  expect(approved.code).toBe(0);
  expect(approved.stdout).toContain("Approved gate 'review' of workflow gated");
  const done = await waitFor(async () => {
    const detail = await getRun(server.url, runId!);
    return detail.run.status === 'completed' ? detail : undefined;
  }, { what: 'the run to complete' });
  expect(done.events.find((e) => e.step_name === 'work' && e.event_type === 'node_completed')?.data.node_output).toBe(hostile);

  const again = await cli('run', 'approve', runId!);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("Cannot approve workflow in 'completed' status");
});

it('run reject cancels a run paused at a plain gate', async () => {
  await writeHomeWorkflow(home, 'gated', gated);
  const started = await cli('workflow', 'run', 'gated');
  const runId = /Run (\S+) of workflow gated started/.exec(started.stdout)![1]!;
  const rejected = await cli('run', 'reject', runId, '--reason', 'not now');
  expect(rejected.code).toBe(0);
  const shown = await waitFor(async () => {
    const got = await cli('run', 'get', runId);
    return got.stdout.includes('cancelled') ? got : undefined;
  }, { what: 'the run to be cancelled' });
  expect(shown.code).toBe(0);
});

it('the node statuses `cairn run get` shows of a run paused at a gate are all documented in the node status table of docs/cli.md', async () => {
  await writeHomeWorkflow(
    home,
    'built-then-gated',
    `name: built-then-gated
description: one approval gate
nodes:
  - id: build
    bash: echo built
  - id: review
    depends_on: [build]
    approval:
      message: Ship it?
  - id: ship
    depends_on: [review]
    bash: echo shipped
`,
  );
  const started = await cli('workflow', 'run', 'built-then-gated', '--json');
  expect(started.code).toBe(3);
  const runId = (JSON.parse(started.stdout.split('\n')[0]!) as { runId: string }).runId;
  const got = await cli('run', 'get', runId);
  expect(got.code).toBe(0);
  const nodeLines = got.stdout.split('\n').slice(got.stdout.split('\n').findIndex((l) => l.startsWith('NODE')) + 1);
  const shown = nodeLines.filter(Boolean).map((line) => line.split(/\s+/)[1]!);
  expect(shown).toEqual(['completed', expect.any(String)]);

  const doc = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
  const table = doc.slice(doc.indexOf('| node status | meaning |'));
  const documented = [...table.split('\n\n')[0]!.matchAll(/^\| `([a-z]+)` \|/gm)].map((m) => m[1]);
  for (const status of shown) expect(documented, `node status '${status}' shown by cairn run get`).toContain(status);
  await cli('run', 'cancel', runId);
});
