import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let server: RunningServer;
// One server for the file: each test writes workflows of its own names, starts its own runs and
// asks about those runs and their children only.
beforeAll(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});

async function waitForStatus(runId: string, statuses: string[]) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}` });
}

function post(runId: string, op: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}/api/workflows/runs/${runId}/${op}`, {
    method: 'POST',
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
}

/** The child run a node of `parentId` started (the run's own detail names it in the node's record). */
async function childOf(parentId: string, nodeId: string): Promise<string> {
  return waitFor(async () => {
    const { events } = await getRun(server.url, parentId);
    const record = events.find((e) => e.step_name === nodeId && e.data.execution?.diagnostics?.blockedOnChildRunId);
    return record?.data.execution.diagnostics.blockedOnChildRunId as string | undefined;
  }, { what: `node ${nodeId} of ${parentId} to be blocked on a child` });
}

it('a workflow node runs its child with with: inputs (hostile quotes kept), and the child\'s returns node is the node\'s output', async () => {
  await writeHomeWorkflow(home, 'child', `name: child
description: echoes what it was given
inputs:
  who: { required: true }
  what: { required: true }
returns: shout
nodes:
  - id: shout
    bash: 'printf "%s to %s" "$INPUTS.what" "$INPUTS.who"'
  - id: after
    depends_on: [shout]
    bash: echo not-the-result
`);
  await writeHomeWorkflow(home, 'parent', `name: parent
description: one child run
nodes:
  - id: seed
    bash: printf hello
  - id: call
    depends_on: [seed]
    workflow: child
    with: { what: "$seed.output", who: "it's \\"them\\"; $(touch pwned)" }
  - id: use
    depends_on: [call]
    bash: 'printf "got: %s" "$call.output"'
`);
  const { runId } = await startRun(server.url, 'parent');
  const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(done.run.status).toBe('completed');
  const use = done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'use');
  expect(use?.data.node_output).toBe(`got: hello to it's "them"; $(touch pwned)`);
  const call = done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'call');
  const childId = call?.data.execution.diagnostics.childRunId as string;
  const child = await getRun(server.url, childId);
  expect(child.run).toMatchObject({ status: 'completed', parent_run_id: runId, inputs: { what: 'hello' }, metadata: { parent_node_id: 'call', child_index: 0 } });
});

it('child runs nest three deep: each level\'s output threads up to the top', async () => {
  await writeHomeWorkflow(home, 'level3', `name: level3\ndescription: leaf\nnodes:\n  - id: leaf\n    bash: 'printf "leaf(%s)" "$ARGUMENTS"'\n`);
  await writeHomeWorkflow(home, 'level2', `name: level2\ndescription: middle\nnodes:\n  - id: down\n    workflow: level3\n    input: "two-$ARGUMENTS"\n  - id: wrap\n    depends_on: [down]\n    bash: 'printf "mid(%s)" "$down.output"'\n`);
  await writeHomeWorkflow(home, 'level1', `name: level1\ndescription: top\nnodes:\n  - id: down\n    workflow: level2\n    input: one\n  - id: wrap\n    depends_on: [down]\n    bash: 'printf "top(%s)" "$down.output"'\n`);
  const { runId } = await startRun(server.url, 'level1');
  const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(done.run.status).toBe('completed');
  expect(done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'wrap')?.data.node_output).toBe('top(mid(leaf(two-one)))');
});

it('a child paused at its gate blocks the parent; approve on the parent is a 400 naming the child; approving the child completes both', async () => {
  await writeHomeWorkflow(home, 'gated-child', `name: gated-child\ndescription: asks\nnodes:\n  - id: ask\n    approval:\n      message: "ok to go?"\n      capture_response: true\n  - id: go\n    depends_on: [ask]\n    bash: 'printf "went: %s" "$ask.output"'\n`);
  await writeHomeWorkflow(home, 'blocked-parent', `name: blocked-parent\ndescription: waits on a gated child\nnodes:\n  - id: call\n    workflow: gated-child\n  - id: after\n    depends_on: [call]\n    bash: 'printf "after %s" "$call.output"'\n`);
  const { runId } = await startRun(server.url, 'blocked-parent');
  const paused = await waitForStatus(runId, ['paused', 'completed', 'failed']);
  expect(paused.run.status).toBe('paused');
  const childId = await childOf(runId, 'call');
  expect(paused.run.metadata.approval).toMatchObject({ type: 'child_workflow', nodeId: 'call', childRunId: childId });
  const suspended = paused.events.find((e) => e.event_type === 'node_suspended' && e.step_name === 'call');
  expect(suspended?.data.execution).toMatchObject({ lifecycle: { status: 'suspended', point: 'child_workflow' }, diagnostics: { blockedOnChildRunId: childId } });

  for (const verb of ['approve', 'reject']) {
    const refused = await post(runId, verb, {});
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toContain(`waiting on sub-run ${childId}`);
  }
  expect((await waitForStatus(childId, ['paused'])).run.status).toBe('paused');
  const ok = await post(childId, 'approve', { comment: 'yes' });
  expect(ok.status).toBe(200);
  const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(done.run.status).toBe('completed');
  expect(done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'after')?.data.node_output).toBe('after went: yes');
  // The node's attempt that was suspended is the one that completed.
  const completed = done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'call');
  expect(completed?.data.execution.attempt.id).toBe(suspended?.data.execution.attempt.id);
});

it('a failed child fails its node and the parent', async () => {
  await writeHomeWorkflow(home, 'bad-child', `name: bad-child\ndescription: fails\nnodes:\n  - id: boom\n    bash: 'echo broken >&2; exit 3'\n`);
  await writeHomeWorkflow(home, 'parent-of-bad', `name: parent-of-bad\ndescription: x\nnodes:\n  - id: call\n    workflow: bad-child\n  - id: after\n    depends_on: [call]\n    bash: echo never\n`);
  const { runId } = await startRun(server.url, 'parent-of-bad');
  const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(done.run.status).toBe('failed');
  const failed = done.events.find((e) => e.event_type === 'node_failed' && e.step_name === 'call');
  expect(failed?.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'child_failed' });
  expect(failed?.data.execution.lifecycle.error).toContain("Child workflow 'bad-child'");
  expect(done.events.some((e) => e.step_name === 'after' && e.event_type === 'node_started')).toBe(false);
});

it('a workflow node naming a workflow that does not exist fails before anything starts, naming it', async () => {
  await writeHomeWorkflow(home, 'parent-of-none', `name: parent-of-none\ndescription: x\nnodes:\n  - id: call\n    workflow: "no-such-../../etc"\n`);
  const { runId } = await startRun(server.url, 'parent-of-none');
  const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(done.run.status).toBe('failed');
  const failed = done.events.find((e) => e.event_type === 'node_failed' && e.step_name === 'call');
  expect(failed?.data.execution.lifecycle.error).toContain("cannot start child workflow 'no-such-../../etc'");
});

it('resuming a parent whose child failed resumes that same child run, and reuses a child that completed', async () => {
  const flag = join(await mkdtemp(join(tmpdir(), 'cairn-child-')), 'fixed');
  home.defer(() => rm(dirname(flag), { recursive: true, force: true }));
  await writeHomeWorkflow(home, 'ok-child', `name: ok-child\ndescription: x\nnodes:\n  - id: say\n    bash: 'echo ran >> "${flag}.ok"; printf first'\n`);
  await writeHomeWorkflow(home, 'flaky-child', `name: flaky-child\ndescription: x\nnodes:\n  - id: fine\n    bash: 'echo ran >> "${flag}.fine"; printf fine'\n  - id: try\n    depends_on: [fine]\n    bash: 'test -e "${flag}" && printf second'\n`);
  await writeHomeWorkflow(home, 'two-children', `name: two-children\ndescription: x\nnodes:\n  - id: one\n    workflow: ok-child\n  - id: two\n    depends_on: [one]\n    workflow: flaky-child\n  - id: both\n    depends_on: [two]\n    bash: 'printf "%s+%s" "$one.output" "$two.output"'\n`);
  const { runId } = await startRun(server.url, 'two-children');
  expect((await waitForStatus(runId, ['completed', 'failed', 'cancelled'])).run.status).toBe('failed');
  const store = home.openStore();
  const [failedChild] = await store.listChildRuns(runId, 'two');
  expect(failedChild?.status).toBe('failed');

  await writeFile(flag, '');
  expect((await post(runId, 'resume')).status).toBe(200);
  const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(done.run.status).toBe('completed');
  const events = await store.listRunEvents(runId);
  expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'both')?.data.node_output).toBe('first+second');
  expect(await store.listChildRuns(runId, 'two')).toEqual([expect.objectContaining({ id: failedChild!.id, status: 'completed' })]);
  // The completed child and the child's completed node did not run again.
  expect((await readFile(`${flag}.ok`, 'utf8')).trim().split('\n')).toHaveLength(1);
  expect((await readFile(`${flag}.fine`, 'utf8')).trim().split('\n')).toHaveLength(1);
});

it('cancelling a parent cancels its running child and grandchild, killing their processes', async () => {
  await writeHomeWorkflow(home, 'sleeper', `name: sleeper\ndescription: x\nnodes:\n  - id: hold\n    bash: sleep 300\n`);
  await writeHomeWorkflow(home, 'middle', `name: middle\ndescription: x\nnodes:\n  - id: down\n    workflow: sleeper\n`);
  await writeHomeWorkflow(home, 'top', `name: top\ndescription: x\nnodes:\n  - id: down\n    workflow: middle\n`);
  const { runId } = await startRun(server.url, 'top');
  const store = home.openStore();
  const pid = await waitFor(async () => {
    const [child] = await store.listOpenDescendants(runId);
    const grandchild = child && (await store.listOpenDescendants(child.id))[0];
    const started = grandchild && (await store.listRunEvents(grandchild.id)).find((e) => e.event_type === 'node_started');
    return typeof started?.data.pid === 'number' && isProcessGroupAlive(started.data.pid) ? started.data.pid : undefined;
  }, { what: 'the grandchild to run its process' });
  const descendants = await store.listOpenDescendants(runId);
  expect(descendants).toHaveLength(2);
  expect((await post(runId, 'cancel')).status).toBe(200);
  expect((await waitForStatus(runId, ['cancelled', 'failed', 'completed'])).run.status).toBe('cancelled');
  for (const d of descendants) expect((await waitForStatus(d.id, ['cancelled', 'failed', 'completed'])).run.status).toBe('cancelled');
  await waitFor(() => (isProcessGroupAlive(pid) ? undefined : true), { what: 'the grandchild process to be gone' });
});
