import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli, startCli, userCliEnv } from './cli-process.js';
import { docLines, docTranscript, normalise } from './doc-transcripts.js';
import { sh } from './shell-line.js';

// One server and home for the file: each test follows runs it started itself, of its own
// workflows, released by its own gate file in the scratch directory.
let home: TempHome;
let server: RunningServer;
let scratch: string;
beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  server = await startServer(home);
  scratch = await mkdtemp(join(tmpdir(), 'cairn-follow-'));
});
afterAll(async () => {
  await home.close();
  await rm(scratch, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runUserCli(home.home, argv);

/** `name`: a node, a gate, then a node that waits until the test creates `open`. */
const reviewed = (name: string, open: string) => `name: ${name}
description: builds, asks, then ships once the test says so
nodes:
  - id: build
    bash: echo built
  - id: review
    depends_on: [build]
    approval:
      message: "Ship it?"
  - id: ship
    depends_on: [review]
    bash: "while [ ! -f '${open}' ]; do sleep 0.05; done; echo shipped"
`;

/** The progress lines (`started  build`, `done     build (12ms)` without the time). */
function progressLines(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^(started|done|failed|skipped|paused)\s/.test(l))
    .map((l) => l.replace(/ \(\d[^)]*\)$/, ''));
}

it('follows a run started elsewhere to its gate, prints the approve command, and after the answer follows it to the end, each event once', async () => {
  const open = join(scratch, 'open-followed');
  await writeHomeWorkflow(home, 'followed', reviewed('followed', open));
  const { runId } = await startRun(server.url, 'followed');

  const first = await cli('run', 'follow', runId);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(3);
  expect(first.stdout).toContain(`Run ${runId} of workflow followed (`);
  expect(progressLines(first.stdout)).toEqual(['started  build', 'done     build', 'started  review', 'paused   waiting: Approval required at \'review\': Ship it?']);
  expect(first.stdout).toContain(`Run ${runId} is paused: Approval required at 'review': Ship it?`);
  expect(first.stdout).toContain(`Approve it with:  cairn run approve ${runId} --comment "<your comment>"`);

  const approved = await cli('run', 'approve', runId, '--comment', 'yes');
  expect(approved.code).toBe(0);
  // The answer is queued for the supervisor: until it is carried out the run still reads paused.
  await waitFor(async () => (await getRun(server.url, runId)).run.status !== 'paused', { what: 'the answer to be carried out' });

  // Followed by its first 8 characters, from another process, while `ship` waits for the test.
  const follow = startCli(['run', 'follow', runId.slice(0, 8)], { env: userCliEnv(home.home), cwd: home.home });
  await waitFor(() => follow.stdout().includes('started  ship'), { what: 'follow to show ship started' });
  expect(follow.stdout()).not.toContain('done     ship');
  await writeFile(open, '');
  expect(await follow.exited).toBe(0);
  expect(follow.stderr()).toBe('');
  expect(progressLines(follow.stdout())).toEqual([
    'started  build',
    'done     build',
    'started  review',
    'paused   waiting: Approval required at \'review\': Ship it?',
    'done     review',
    'started  ship',
    'done     ship',
  ]);
  expect(follow.stdout()).toContain('Output of ship:\n  shipped\n');
  expect(follow.stdout()).toMatch(new RegExp(`^Run ${runId} completed in `, 'm'));

  // A run that ended is shown whole, with its outcome and exit status.
  const after = await cli('run', 'follow', runId);
  expect(after.code).toBe(0);
  expect(progressLines(after.stdout)).toEqual(progressLines(follow.stdout()));
});

it('docs/cli.md\'s run follow transcript, run as written: the gate, the answer, the end', async () => {
  const open = join(scratch, 'open-reviewed');
  await writeHomeWorkflow(home, 'reviewed', reviewed('reviewed', open));
  const { runId } = await startRun(server.url, 'reviewed');
  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'paused', { what: 'the run to pause at its gate' });
  const [atGate, approve, toEnd] = docTranscript('cairn run follow', 'cairn run follow');
  const typed = (command: string) => command.replace('7f3c1a2b', runId.slice(0, 8)).split(' ').slice(1);

  const first = await cli(...typed(atGate!.command));
  expect(first.code).toBe(3);
  expect(normalise(first.stdout, runId)).toEqual(docLines(atGate!));
  const approved = await cli(...typed(approve!.command));
  expect(approved.code).toBe(0);
  expect(normalise(approved.stdout, runId)).toEqual(docLines(approve!));
  await waitFor(async () => (await getRun(server.url, runId)).run.status !== 'paused', { what: 'the answer to be carried out' });
  const follow = startCli(typed(toEnd!.command), { env: userCliEnv(home.home), cwd: home.home });
  await waitFor(() => follow.stdout().includes('started  ship'), { what: 'follow to show ship started' });
  await writeFile(open, '');
  expect(await follow.exited).toBe(0);
  expect(normalise(follow.stdout(), runId)).toEqual(docLines(toEnd!));
});

it('exits 1 with the failure for a run that failed, and 2 naming the problem for a bad --output', async () => {
  await writeHomeWorkflow(home, 'broken', `name: broken\ndescription: fails\nnodes:\n  - id: boom\n    bash: "echo 'disk on fire' >&2; exit 3"\n`);
  const { runId } = await startRun(server.url, 'broken');
  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'failed', { what: 'the run to fail' });
  const failed = await cli('run', 'follow', runId);
  expect(failed.code).toBe(1);
  expect(failed.stdout).toMatch(/^failed\s+boom \(.+\): .*disk on fire/m);
  expect(failed.stderr).toContain(`Run ${runId} failed`);
  expect(failed.stderr).toContain(`Inspect it with: cairn run get ${runId}`);
  const bad = await cli('run', 'follow', runId, '--output', 'some');
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--output must be one of last, all, none, not 'some'");
});

it('a run paused on a child run\'s gate prints the command that answers it on the child; run as printed, it approves and both complete', async () => {
  const open = join(scratch, 'open-gated-child');
  await writeHomeWorkflow(home, 'gated-child', `name: gated-child\ndescription: asks, then waits for the test\nnodes:\n  - id: ask\n    approval:\n      message: "ok to go?"\n  - id: go\n    depends_on: [ask]\n    bash: "while [ ! -f '${open}' ]; do sleep 0.05; done; echo went"\n`);
  await writeHomeWorkflow(home, 'blocked-parent', `name: blocked-parent\ndescription: waits on a gated child\nnodes:\n  - id: call\n    workflow: gated-child\n  - id: after\n    depends_on: [call]\n    bash: echo after\n`);
  const started = await cli('workflow', 'run', 'blocked-parent');
  expect(started.code).toBe(3);
  const parentId = /Run (\S+) of workflow blocked-parent started/.exec(started.stdout)![1]!;
  const parent = await getRun(server.url, parentId);
  const childId = parent.run.metadata.approval.childRunId as string;
  expect(childId).toMatch(/^[0-9a-f-]{36}$/);
  expect(started.stdout).toContain(`Run ${parentId} waits on its child run ${childId}: answer run ${childId}.`);
  const approveLine = started.stdout.split('\n').find((l) => l.startsWith('Approve it with:'))!;
  expect(approveLine).toBe(`Approve it with:  cairn run approve ${childId} --comment "<your comment>"`);
  // As docs/cli.md shows it under cairn workflow run.
  const doc = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
  const example = [...doc.split('\n## cairn workflow run\n')[1]!.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('waits on its child run'))!;
  const shown = started.stdout.replaceAll(parentId, '5d2e…').replaceAll(childId, '0b9a…');
  expect(shown).toContain(example);

  // `cairn` as `npm link` puts it on PATH; the command line exactly as printed.
  const bin = join(scratch, 'bin');
  await (await import('node:fs/promises')).mkdir(bin);
  await symlink(fileURLToPath(new URL('../../bin/cairn.js', import.meta.url)), join(bin, 'cairn'));
  const env = userCliEnv(home.home, { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
  const answered = await sh(approveLine.slice('Approve it with:'.length).trim(), home.home, env);
  expect(answered.stderr).toBe('');
  expect(answered.code).toBe(0);

  // The parent stays paused until its child ends; followed meanwhile, it is not at a gate any more.
  await waitFor(async () => (await getRun(server.url, childId)).run.status === 'running', { what: 'the child to go on' });
  expect((await getRun(server.url, parentId)).run.status).toBe('paused');
  const follow = startCli(['run', 'follow', parentId], { env: userCliEnv(home.home), cwd: home.home });
  await waitFor(() => follow.stdout().includes('paused   waiting:'), { what: 'follow to show the pause' });
  await writeFile(open, '');
  expect(await follow.exited).toBe(0);
  expect(follow.stdout()).not.toContain('Approve it with');
  expect(follow.stdout()).toMatch(/^done     after/m);
  expect(follow.stdout()).toMatch(new RegExp(`^Run ${parentId} completed in `, 'm'));
  expect((await getRun(server.url, childId)).run.status).toBe('completed');
});

it('Ctrl-C stops following and leaves the run going (exit 130); --json prints each event once, recorded ones as the stream sends them', async () => {
  const open = join(scratch, 'open-waits');
  await writeHomeWorkflow(home, 'waits', `name: waits\ndescription: waits for the test\nnodes:\n  - id: hold\n    bash: "while [ ! -f '${open}' ]; do sleep 0.05; done; echo held"\n`);
  const { runId } = await startRun(server.url, 'waits');
  const follow = startCli(['run', 'follow', runId], { env: userCliEnv(home.home), cwd: home.home });
  await waitFor(() => follow.stdout().includes('started  hold'), { what: 'follow to show hold started' });
  follow.child.kill('SIGINT');
  expect(await follow.exited).toBe(130);
  expect(follow.stderr()).toContain(`Stopped following run ${runId}; it goes on. Follow it again with: cairn run follow ${runId}`);
  expect((await getRun(server.url, runId)).run.status).toBe('running');

  const json = startCli(['run', 'follow', runId, '--json'], { env: userCliEnv(home.home), cwd: home.home });
  await waitFor(() => json.stdout().includes('"nodeId":"hold"'), { what: 'the recorded node start' });
  await writeFile(open, '');
  expect(await json.exited).toBe(0);
  const frames = json.stdout().trim().split('\n').map((l) => JSON.parse(l) as { seq: number; runId: string; type: string; status?: string });
  const seqs = frames.map((f) => f.seq);
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
  expect(frames.every((f) => f.runId === runId)).toBe(true);
  expect(frames.filter((f) => f.type === 'dag_node').map((f) => f.status)).toEqual(['running', 'completed']);
  expect(frames.at(-1)).toMatchObject({ type: 'workflow_status', status: 'completed' });
});
