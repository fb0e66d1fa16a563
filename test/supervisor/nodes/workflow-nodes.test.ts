import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSupervisor } from '../../helpers/supervisor.js';
import { waitFor } from '../../helpers/wait-for.js';
import { lastRunEvent, openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * `workflow:` nodes (one child run), and with `fan_out` one child per item (child runs, or
 * instances inside the run), driven by the scheduler a real supervisor builds: the node's
 * output, how a child's failure, pause or cancel reaches the parent, and the join.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

/** The child runs a node of the parent started, in item order. */
function childrenOf(parentId: string, nodeId: string) {
  return room.sup.store.listChildRuns(parentId, nodeId);
}

async function completedOutput(runId: string, nodeId: string): Promise<string | undefined> {
  return (await room.events(runId)).find((e) => e.event_type === 'node_completed' && e.step_name === nodeId)?.data.node_output;
}

describe('workflow: one child run', () => {
  it('runs the child with the node’s input as $ARGUMENTS; the child’s output is the node’s', async () => {
    await room.workflow('greet', 'name: greet\ndescription: x\nnodes:\n  - id: hello\n    bash: printf "hello $ARGUMENTS"\n');
    const run = await room.start(`name: parent
description: x
nodes:
  - id: who
    bash: printf world
  - id: child
    depends_on: [who]
    workflow: greet
    input: "$who.output"
  - id: after
    depends_on: [child]
    bash: printf "[%s]" "$child.output"
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    expect(await completedOutput(run.id, 'child')).toBe('hello world');
    expect(await completedOutput(run.id, 'after')).toBe('[hello world]');
    const [child] = await childrenOf(run.id, 'child');
    expect(child).toMatchObject({ status: 'completed', workflow_name: 'greet', metadata: { parent_node_id: 'child' } });
  });

  it('a child that fails fails the node, and the parent fails with it', async () => {
    await room.workflow('breaks', 'name: breaks\ndescription: x\nnodes:\n  - id: oops\n    bash: exit 7\n');
    const run = await room.start('name: parent\ndescription: x\nnodes:\n  - id: child\n    workflow: breaks\n');
    expect((await room.settle(run.id)).status).toBe('failed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'child')).toEqual(['node_started', 'node_failed']);
    const [child] = await childrenOf(run.id, 'child');
    expect(child?.status).toBe('failed');
  });

  it('a child paused at its gate pauses the parent on it; once the child is answered and ends, the same attempt completes', async () => {
    await room.workflow('asks', 'name: asks\ndescription: x\nnodes:\n  - id: ok\n    approval: { message: "fine?" }\n  - id: said\n    depends_on: [ok]\n    bash: printf answered\n');
    const run = await room.start('name: parent\ndescription: x\nnodes:\n  - id: child\n    workflow: asks\n');
    const parentPaused = await room.settle(run.id, ['paused']);
    const [child] = await childrenOf(run.id, 'child');
    expect(parentPaused.metadata.approval).toMatchObject({ type: 'child_workflow', childRunId: child!.id });
    // The parent's own gate answer does not apply: it waits on its child.
    expect((await room.job('approve_run', run.id)).result).toBe(`ignored: the run waits on its child run ${child!.id}`);
    await room.pausedAtGate(child!.id);
    expect((await room.answer(child!.id, 'approve_run')).result).toBe('continued');
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    const records = events.filter((e) => e.step_name === 'child' && e.event_type.startsWith('node_'));
    expect(records.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended', 'node_completed']);
    expect(new Set(records.map((e) => e.data.execution.attempt.id)).size).toBe(1);
    expect(await completedOutput(run.id, 'child')).toBe('answered');
    const settled = (await room.sup.store.listRunJobs(run.id)).filter((j) => j.kind === 'child_run_settled');
    expect(settled.map((j) => j.result)).toContain('continued the parent');
  });
});

describe('workflow: when the child is cancelled, or the parent changes hands', () => {
  it('a child cancelled by the user fails the node that waits for it, and the parent fails', async () => {
    const held = room.held('child-body');
    await room.workflow('slow', `name: slow\ndescription: x\nnodes:\n  - id: work\n    bash: "${held.bash}"\n`);
    const run = await room.start('name: parent\ndescription: x\nnodes:\n  - id: child\n    workflow: slow\n  - id: after\n    depends_on: [child]\n    bash: printf after\n');
    await held.started();
    const [child] = await childrenOf(run.id, 'child');
    expect((await room.job('cancel_run', child!.id)).result).toBe('cancelled');
    expect((await room.settle(run.id)).status).toBe('failed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'child')).toEqual(['node_started', 'node_failed']);
    expect(typesAt(events, 'after')).toEqual(['node_skipped']);
  });

  it('a parent taken over while its child runs waits for the same child: no second child is started', async () => {
    const held = room.held('long-child');
    await room.workflow('slow', `name: slow\ndescription: x\nnodes:\n  - id: work\n    bash: "${held.bash}"\n`);
    const run = await room.start('name: parent\ndescription: x\nnodes:\n  - id: child\n    workflow: slow\n');
    await held.started();
    await room.sup.stop();
    const next = await startSupervisor(room.home, { id: 'sup-next' });
    // The child's own attempt was cut by the stop and runs again under the next supervisor.
    await waitFor(() => held.runs() === 2, { what: 'the child’s node to run again' });
    await held.release();
    expect((await next.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
    const children = await childrenOf(run.id, 'child');
    expect(children).toHaveLength(1);
    expect(children[0]!.status).toBe('completed');
    expect(await completedOutput(run.id, 'child')).toBe('long-child');
  });
});

describe('workflow: with fan_out as child runs', () => {
  const each = (join: string) => `name: parent
description: x
nodes:
  - id: each
    workflow: item
    fan_out: { items: '["a","bad","c"]', max_parallel: 2, join: ${join}, mode: child_runs }
`;
  const item = 'name: item\ndescription: x\nnodes:\n  - id: do\n    bash: \'case "$ARGUMENTS" in bad*) echo no >&2; exit 1;; esac; printf "done-$ARGUMENTS"\'\n';

  it('all_done: one child per item; the output lists each child’s output in item order, a failed one as {failed: true}', async () => {
    await room.workflow('item', item);
    const run = await room.start(each('all_done'));
    expect((await room.settle(run.id)).status).toBe('completed');
    const output = JSON.parse((await completedOutput(run.id, 'each'))!);
    expect(output).toHaveLength(3);
    expect(output[0]).toBe('done-a');
    expect(output[1]).toMatchObject({ failed: true, status: 'failed' });
    expect(output[2]).toBe('done-c');
    expect((await childrenOf(run.id, 'each')).map((c) => c.status).sort()).toEqual(['completed', 'completed', 'failed']);
  });

  it('all_success: a failed item fails the node', async () => {
    await room.workflow('item', item);
    const run = await room.start(each('all_success'));
    expect((await room.settle(run.id)).status).toBe('failed');
    expect(typesAt(await room.events(run.id), 'each')).toEqual(['node_started', 'node_failed']);
  });

  it('items that are not a JSON array fail the node before any child starts, saying what they were', async () => {
    await room.workflow('item', item);
    const run = await room.start(`name: parent
description: x
nodes:
  - id: list
    bash: printf '{"a":1}'
  - id: each
    depends_on: [list]
    workflow: item
    fan_out: { items: "$list.output", mode: child_runs }
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const failed = (await room.events(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'each')!;
    expect(failed.data.execution.lifecycle.error).toMatch(/got an object/);
    expect(await childrenOf(run.id, 'each')).toEqual([]);
  });
});

describe('workflow: an interactive child', () => {
  it('one that became interactive after the parent loaded fails each node that would start it, one child, fanned out or in the run, and no child starts', async () => {
    await room.workflow('pairing', 'name: pairing\ndescription: x\ninteractive: true\nnodes:\n  - id: hello\n    bash: printf hi\n');
    const run = await room.start(`name: parent
description: x
nodes:
  - id: one
    workflow: pairing
  - id: many
    workflow: pairing
    fan_out: { items: '["a","b"]', mode: child_runs }
  - id: inside
    workflow: pairing
    fan_out: { items: '["a","b"]' }
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const failed = (await room.events(run.id)).filter((e) => e.event_type === 'node_failed');
    const refusal =
      "cannot start child workflow 'pairing': workflow 'pairing' is interactive ('interactive: true'), so no workflow starts it as a child run or fan-out in the background; " +
      "run it on its own, or remove 'interactive: true' from its file";
    expect(Object.fromEntries(failed.map((e) => [e.step_name, e.data.execution.lifecycle.error]))).toEqual({
      one: `Node 'one': ${refusal}`,
      many: `Node 'many': ${refusal}`,
      inside: `Node 'inside': ${refusal}`,
    });
    expect(await room.sup.store.listChildRuns(run.id, 'one')).toEqual([]);
    expect(await room.sup.store.listChildRuns(run.id, 'many')).toEqual([]);
  });
});

describe('workflow: with fan_out in the run', () => {
  it('runs each item as an instance at <node>[<i>]/<id>, starts no child run, and joins the outputs in item order', async () => {
    await room.workflow('shout', 'name: shout\ndescription: x\nnodes:\n  - id: up\n    bash: printf "$ARGUMENTS!"\n');
    const run = await room.start(`name: parent
description: x
nodes:
  - id: words
    bash: printf '["x","y","z"]'
  - id: each
    depends_on: [words]
    workflow: shout
    fan_out: { items: "$words.output", max_parallel: 2, mode: in_run }
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    expect(JSON.parse((await completedOutput(run.id, 'each'))!)).toEqual(['x!', 'y!', 'z!']);
    const events = await room.events(run.id);
    for (const i of [0, 1, 2]) expect(typesAt(events, `each[${i}]/up`)).toEqual(['node_started', 'node_completed']);
    expect(await childrenOf(run.id, 'each')).toEqual([]);
    // The instance snapshot is written before any instance starts.
    const snapshot = events.findIndex((e) => e.event_type === 'fan_out_instances');
    const firstInstance = events.findIndex((e) => e.step_name?.startsWith('each[') ?? false);
    expect(snapshot).toBeGreaterThan(-1);
    expect(snapshot).toBeLessThan(firstInstance);
  });

  it('taken over by another supervisor midway: completed instances are reused, the cut one runs again, the rest run once', async () => {
    const ran = join(room.home.home, 'instances.log');
    const cut = join(room.home.home, 'cut-started');
    await room.workflow('step', `name: step
description: x
nodes:
  - id: work
    bash: 'echo "$ARGUMENTS" >> "${ran}"; if [ "$ARGUMENTS" = 2 ] && [ ! -e "${cut}" ]; then touch "${cut}"; sleep 600 & wait; fi; printf "did-$ARGUMENTS"'
`);
    const run = await room.start(`name: parent
description: x
nodes:
  - id: each
    workflow: step
    fan_out: { items: '["1","2","3"]', max_parallel: 1, mode: in_run }
`);
    await waitFor(() => existsSync(cut), { what: 'instance 2 to start' });
    await room.sup.stop();
    const next = await startSupervisor(room.home, { id: 'sup-next' });
    expect((await next.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
    expect(JSON.parse((await completedOutput(run.id, 'each'))!)).toEqual(['did-1', 'did-2', 'did-3']);
    expect(readFileSync(ran, 'utf8').split('\n').filter(Boolean)).toEqual(['1', '2', '2', '3']);
    const snapshots = (await room.events(run.id)).filter((e) => e.event_type === 'fan_out_instances');
    expect(snapshots).toHaveLength(1);
  });

  it('a cancel stops the instances under way, and the items not yet begun never start', async () => {
    const held = room.held('instance');
    await room.workflow('slow', `name: slow\ndescription: x\nnodes:\n  - id: work\n    bash: "${held.bash}"\n`);
    const run = await room.start(`name: parent
description: x
nodes:
  - id: each
    workflow: slow
    fan_out: { items: '["1","2","3","4"]', max_parallel: 1, mode: in_run }
`);
    await held.started();
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    expect(held.runs()).toBe(1);
    expect(typesAt(events, 'each[1]/work')).toEqual([]);
    expect(lastRunEvent(events)?.event_type).toBe('workflow_cancelled');
    await waitFor(async () => (await room.sup.store.getRun(run.id))?.owner_id === null, { what: 'the run to be let go' });
  });
});
