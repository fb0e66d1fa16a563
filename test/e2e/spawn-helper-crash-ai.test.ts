import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { paidAnswer, startClaudeCli } from '../helpers/paid-claude.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * kill -9 of the spawn helper while an AI node's CLI (the real Claude Code CLI against a local
 * Messages API server) waits mid-stream: the CLI the helper started is killed with it, the
 * attempt is interrupted, and the node runs again with a new CLI.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a kill -9 of the spawn helper under a running AI node: its CLI is killed, the node runs again once and completes', async () => {
  // The first answer starts streaming, then stalls forever (the CLI waits mid-stream).
  const stalled = { ...paidAnswer, blocks: [{ type: 'text' as const, text: 'partial' }, { type: 'text' as const, text: 'never' }], stallAfterFirst: true };
  const { messages, cairn } = await startClaudeCli(home, (i) => (i === 0 ? stalled : paidAnswer));
  await writeHomeWorkflow(home, 'ask-one', `name: ask-one
description: one AI step, then a bash step
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: ask
    prompt: "say done"
  - id: after
    depends_on: [ask]
    bash: echo after
`);
  const { runId } = await startRun(cairn.url, 'ask-one');
  const started = await waitFor(async () => (await getRun(cairn.url, runId)).events.find((e) => e.event_type === 'node_started' && e.step_name === 'ask'), {
    what: 'the AI node to start', timeoutMs: 30_000,
  });
  await waitFor(() => messages.requests.length >= 1, { what: 'the CLI to call the Messages API', timeoutMs: 30_000 });
  const cliGroup = started.data.pid as number;
  const stat = await readFile(`/proc/${cliGroup}/stat`, 'latin1');
  const helperPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  expect((await readFile(`/proc/${helperPid}/comm`, 'utf8')).trim()).toBe('perl');
  process.kill(helperPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed', 'cancelled', 'paused'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 60_000 });
  const rows = events.filter((e) => e.step_name === 'ask' && e.event_type.startsWith('node_'));
  // Two attempts of one invocation: the first interrupted, the second completed. (The second may
  // start its CLI twice: it resumes the session the first left, and runs cold if that cannot be.)
  const attemptIds = [...new Set(rows.map((e) => e.data.execution.attempt.id as string))];
  expect(attemptIds).toHaveLength(2);
  const [first, second] = attemptIds.map((id) => rows.filter((e) => e.data.execution.attempt.id === id));
  expect(first!.map((e) => e.event_type)).toEqual(['node_started', 'node_failed']);
  const lost = first![1]!;
  expect(lost.data.interrupted).toBe(true);
  expect(lost.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'transient' });
  expect(lost.data.error).toMatch(/^Attempt interrupted: its spawn helper \(perl, pid \d+\) was killed by SIGKILL while it ran/);
  expect(second!.at(-1)!.event_type).toBe('node_completed');
  expect(second!.filter((e) => e.event_type !== 'node_started')).toHaveLength(1);
  expect(new Set(rows.map((e) => e.data.execution.invocation.id)).size).toBe(1);
  expect(run.status).toBe('completed');
  // The first CLI is gone, and it never talked to the provider while the second did.
  expect(isProcessGroupAlive(cliGroup)).toBe(false);
  expect(messages.maxConcurrent()).toBe(1);
});
