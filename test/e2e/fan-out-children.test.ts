import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import type { Store } from '../../src/store/store.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeFlakyItemWorkflow, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let server: RunningServer;
let store: Store;
async function openServer(): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '24', CAIRN_MAX_CONCURRENCY_PER_RUN: '24' });
  store = home.openStore();
}

async function waitForStatus(runId: string, statuses: string[], timeoutMs?: number) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, ...(timeoutMs ? { timeoutMs } : {}) });
}
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-fan-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
const output = (events: Record<string, any>[], id: string) =>
  events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output as string | undefined;

// Each test writes its own workflows, starts its own runs and asks about those runs only: one
// server serves them all.
describe('on one server', () => {
  beforeAll(openServer);
  afterAll(() => home.close());

  it.each(['child_runs', 'in_run'])('a fan-out (%s) of 200 items with max_parallel 7 never has more than 7 items running, and joins in item order', async (mode) => {
    await writeHomeWorkflow(home, 'stamp', `name: stamp
description: records when it ran
nodes:
  - id: work
    bash: 's=$(date +%s%N); sleep 0.02; e=$(date +%s%N); printf "%s %s %s" "$ARGUMENTS" "$s" "$e"'
`);
    await writeHomeWorkflow(home, 'wide', `name: wide
description: 200 children, 7 at a time
nodes:
  - id: list
    bash: 'echo "[$(seq -s, 0 199)]"'
  - id: each
    depends_on: [list]
    workflow: stamp
    fan_out: { items: "$list.output", max_parallel: 7, join: all_success, mode: ${mode} }
`);
    const { runId } = await startRun(server.url, 'wide');
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled'], 120_000);
    expect(done.run.status, JSON.stringify(done.events.filter((e) => e.event_type === 'node_failed').slice(0, 2))).toBe('completed');
    // The run's whole log (the detail route pages its events).
    const rows = (JSON.parse(output(await store.listRunEvents(runId), 'each')!) as string[]).map((line) => line.split(' ').map(Number) as [number, number, number]);
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // The most intervals open at any moment: +1 at each start, -1 at each end (ends first on a tie).
    const edges = rows.flatMap(([, s, e]) => [[s, 1], [e, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let open = 0;
    let most = 0;
    for (const [, step] of edges) most = Math.max(most, (open += step));
    expect(most).toBeLessThanOrEqual(7);
    expect(most).toBeGreaterThan(1);
    expect(await store.listChildRuns(runId, 'each')).toHaveLength(mode === 'child_runs' ? 200 : 0);
  });

  it('items that are not a JSON array fail the node before any child starts, naming what they were', async () => {
    await writeHomeWorkflow(home, 'echo', `name: echo\ndescription: x\nnodes:\n  - id: e\n    bash: echo "$ARGUMENTS"\n`);
    await writeHomeWorkflow(home, 'not-a-list', `name: not-a-list
description: x
nodes:
  - id: list
    bash: 'printf "{\\"a\\": 1}"'
  - id: each
    depends_on: [list]
    workflow: echo
    fan_out: { items: "$list.output", max_parallel: 2 }
`);
    const { runId } = await startRun(server.url, 'not-a-list');
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('failed');
    const failed = done.events.find((e) => e.step_name === 'each' && e.event_type === 'node_failed');
    expect(failed?.data.execution.lifecycle.error).toBe("Node 'each': 'fan_out.items' must resolve to a JSON array; got an object");
    expect(await store.listChildRuns(runId, 'each')).toEqual([]);
  });

  it('a fan-out child that pauses at a gate is cancelled and fails its node instead of pausing the parent', async () => {
    await writeHomeWorkflow(home, 'asks', `name: asks\ndescription: x\nnodes:\n  - id: ask\n    approval:\n      message: "ok?"\n`);
    await writeHomeWorkflow(home, 'fan-asks', `name: fan-asks
description: x
nodes:
  - id: each
    workflow: asks
    fan_out: { items: '["a"]', max_parallel: 1, join: all_done }
`);
    const { runId } = await startRun(server.url, 'fan-asks');
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled', 'paused']);
    expect(done.run.status).toBe('failed');
    expect(done.events.find((e) => e.step_name === 'each' && e.event_type === 'node_failed')?.data.execution.lifecycle.error).toContain('paused at a gate inside a fan-out');
    const [child] = await store.listChildRuns(runId, 'each');
    expect((await waitForStatus(child!.id, ['cancelled'])).run.status).toBe('cancelled');
  });

  it('abandoning a parent with 20 running descendants kills every process and cancels every descendant', async () => {
    await writeHomeWorkflow(home, 'leaf', `name: leaf\ndescription: x\nnodes:\n  - id: hold\n    bash: sleep 300\n`);
    await writeHomeWorkflow(home, 'mid', `name: mid\ndescription: x\nnodes:\n  - id: hold\n    bash: sleep 300\n  - id: down\n    workflow: leaf\n`);
    await writeHomeWorkflow(home, 'tree', `name: tree
description: 10 children, each with a child of its own
nodes:
  - id: each
    workflow: mid
    fan_out: { items: '[0,1,2,3,4,5,6,7,8,9]', max_parallel: 10, join: all_done, mode: child_runs }
`);
    const { runId } = await startRun(server.url, 'tree');
    // 20 descendants, each with a sleeping process whose group is recorded.
    const groups = await waitFor(async () => {
      const descendants = await store.listOpenDescendants(runId);
      if (descendants.length < 20) return undefined;
      const pids: number[] = [];
      for (const d of descendants) {
        for (const e of await store.listRunEvents(d.id)) if (e.event_type === 'node_started' && typeof e.data.pid === 'number') pids.push(e.data.pid);
      }
      return pids.length === 20 && pids.every((pid) => isProcessGroupAlive(pid)) ? pids : undefined;
    }, { what: '20 descendants running their processes', timeoutMs: 30_000 });
    const descendants = await store.listOpenDescendants(runId);
    expect(descendants).toHaveLength(20);

    const res = await fetch(`${server.url}/api/workflows/runs/${runId}/abandon`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, cascadeFailures: 0, blockedParentRunId: null });
    expect((await store.getRun(runId))?.status).toBe('cancelled');
    for (const d of descendants) expect((await store.getRun(d.id))?.status).toBe('cancelled');
    expect(groups.filter((pid) => isProcessGroupAlive(pid))).toEqual([]);
  });

  it('abandoning a child that blocks a paused parent names the parent it strands', async () => {
    await writeHomeWorkflow(home, 'asks', `name: asks\ndescription: x\nnodes:\n  - id: ask\n    approval:\n      message: "ok?"\n`);
    await writeHomeWorkflow(home, 'waits', `name: waits\ndescription: x\nnodes:\n  - id: call\n    workflow: asks\n`);
    const { runId } = await startRun(server.url, 'waits');
    const paused = await waitForStatus(runId, ['paused', 'failed', 'completed']);
    const childRunId = paused.run.metadata.approval.childRunId as string;
    const res = await fetch(`${server.url}/api/workflows/runs/${childRunId}/abandon`, { method: 'POST' });
    expect(await res.json()).toMatchObject({ success: true, cascadeFailures: 0, blockedParentRunId: runId });
  });

  it('resuming a fan-out that failed on 3 items re-runs those 3 children only (the same child runs)', async () => {
    const flags = await tempDir();
    await writeFlakyItemWorkflow(home, flags);
    await writeHomeWorkflow(home, 'flaky-fan', `name: flaky-fan
description: 10 items, 3 bad
nodes:
  - id: each
    workflow: flaky
    fan_out: { items: '["a","bad1","b","c","bad2","d","e","bad3","f","g"]', max_parallel: 4, join: all_success, mode: child_runs }
`);
    const { runId } = await startRun(server.url, 'flaky-fan');
    const failed = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(failed.run.status).toBe('failed');
    const before = await store.listChildRuns(runId, 'each');
    expect(before.filter((c) => c.status === 'failed').map((c) => c.user_message)).toEqual(['bad1', 'bad2', 'bad3']);

    await writeFile(join(flags, 'fixed'), '');
    const res = await fetch(`${server.url}/api/workflows/runs/${runId}/resume`, { method: 'POST' });
    expect(res.status).toBe(200);
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('completed');
    expect(JSON.parse(output(done.events, 'each')!)).toEqual(['a', 'bad1', 'b', 'c', 'bad2', 'd', 'e', 'bad3', 'f', 'g'].map((i) => `done-${i}`));
    // Each item's program ran once in all; the failed children were resumed, not replaced.
    const ran = (await readFile(join(flags, 'ran.log'), 'utf8')).trim().split('\n').sort();
    expect(ran).toEqual(['a', 'b', 'bad1', 'bad2', 'bad3', 'c', 'd', 'e', 'f', 'g']);
    const after = await store.listChildRuns(runId, 'each');
    expect(after.map((c) => c.id)).toEqual(before.map((c) => c.id));
  });

  it('hands each item to its child as $ARGUMENTS and, with fan_out.as, as an input beside with: (hostile text kept as text)', async () => {
    await writeHomeWorkflow(home, 'takes', `name: takes
description: x
inputs:
  file: { required: true }
  tone: { required: true }
nodes:
  - id: say
    bash: 'printf "%s|%s|%s" "$ARGUMENTS" "$INPUTS.file" "$INPUTS.tone"'
`);
    const list = join(await tempDir(), 'items.json');
    await writeFile(list, JSON.stringify(['a.txt', `it's "b"; $(touch pwned)`]));
    await writeHomeWorkflow(home, 'each-file', `name: each-file
description: x
nodes:
  - id: list
    bash: 'cat "${list}"'
  - id: each
    depends_on: [list]
    workflow: takes
    with: { tone: calm }
    fan_out: { items: "$list.output", as: file, max_parallel: 2 }
`);
    const { runId } = await startRun(server.url, 'each-file');
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('completed');
    expect(JSON.parse(output(done.events, 'each')!)).toEqual(['a.txt|a.txt|calm', `it's "b"; $(touch pwned)|it's "b"; $(touch pwned)|calm`]);
    // `as`/`with` need inputs of their own: child runs, not in-run instances.
    expect(await store.listChildRuns(runId, 'each')).toHaveLength(2);
  });

  it('drops input: on a fan-out node with a warning when the workflow loads: each item is its child\'s $ARGUMENTS', async () => {
    await writeHomeWorkflow(home, 'echo', `name: echo\ndescription: x\nnodes:\n  - id: e\n    bash: echo "$ARGUMENTS"\n`);
    await writeHomeWorkflow(home, 'fan-input', `name: fan-input\ndescription: x\nnodes:\n  - id: each\n    workflow: echo\n    input: ignored\n    fan_out: { items: '["a","b"]' }\n`);
    const { runId } = await startRun(server.url, 'fan-input');
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('completed');
    expect(JSON.parse(output(done.events, 'each')!)).toEqual(['a', 'b']);
    const warned = done.events.find((e) => e.event_type === 'workflow_parse_warnings');
    expect(JSON.stringify(warned?.data)).toContain("key 'input' will be ignored: with 'fan_out' each item is its child's $ARGUMENTS");
  });
});

// Killing the supervisor leaves a server in take-over: the test gets a server of its own.
describe('on a server of its own', () => {
  beforeEach(openServer);
  afterEach(() => home.close());

  it('a fan-out whose supervisor is killed with -9 halfway finishes after take-over with one child run per item, each completed once', async () => {
    const flags = await tempDir();
    await writeHomeWorkflow(home, 'tick', `name: tick
description: notes it ran
nodes:
  - id: work
    bash: 'echo "$ARGUMENTS" >> "${flags}/ran.log"; sleep 0.2; printf "%s" "t-$ARGUMENTS"'
`);
    await writeHomeWorkflow(home, 'crash-fan', `name: crash-fan
description: 40 items
nodes:
  - id: list
    bash: 'echo "[$(seq -s, 0 39)]"'
  - id: each
    depends_on: [list]
    workflow: tick
    fan_out: { items: "$list.output", max_parallel: 4, join: all_success, mode: child_runs }
`);
    const { runId } = await startRun(server.url, 'crash-fan');
    await waitFor(async () => {
      const text = await readFile(join(flags, 'ran.log'), 'utf8').catch(() => '');
      return text.trim().split('\n').length >= 16 ? true : undefined;
    }, { what: 'half the items to have run' });
    const supervisorPid = await server.pid('supervisor');
    process.kill(supervisorPid, 'SIGKILL');

    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled'], 90_000);
    expect(done.run.status).toBe('completed');
    expect(await server.pid('supervisor')).not.toBe(supervisorPid);
    expect(JSON.parse(output(await store.listRunEvents(runId), 'each')!)).toEqual(Array.from({ length: 40 }, (_, i) => `t-${i}`));
    const children = await store.listChildRuns(runId, 'each');
    expect(children.map((c) => c.metadata.child_index)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    for (const child of children) {
      expect(child.status).toBe('completed');
      const completions = (await store.listRunEvents(child.id)).filter((e) => e.event_type === 'node_completed');
      expect(completions).toHaveLength(1);
    }
  });
});
