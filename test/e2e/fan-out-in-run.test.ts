import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeFlakyItemWorkflow, writeHomeWorkflow } from '../helpers/workflows.js';

/** Fan-outs whose items run as instances inside the parent run (`fan_out.mode: in_run`, the default for a bash-only child). */

let home: TempHome;
let server: RunningServer;
let store: Store;
async function openServer(): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home);
  store = home.openStore();
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-fan-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
async function waitForEnd(runId: string, timeoutMs = 60_000) {
  return waitFor(async () => {
    const run = await store.getRun(runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  }, { what: `run ${runId} to end`, timeoutMs });
}
const completions = <E extends { event_type: string; step_name: string | null }>(events: E[], path: string): E[] =>
  events.filter((e) => e.event_type === 'node_completed' && e.step_name === path);

// Each test writes its own workflows, starts its own runs and asks about those runs only: one
// server serves them all.
describe('on one server', () => {
  beforeAll(openServer);
  afterAll(() => home.close());

  it('runs a bash-only child as in-run instances by default: no child runs, a snapshot, aggregate and instance records', async () => {
    await writeHomeWorkflow(home, 'echo', `name: echo\ndescription: x\nnodes:\n  - id: say\n    bash: 'printf "said %s" "$ARGUMENTS"'\n`);
    await writeHomeWorkflow(home, 'fan', `name: fan\ndescription: x\nnodes:\n  - id: each\n    workflow: echo\n    fan_out: { items: '["a", {"k": 1}]', max_parallel: 2 }\n`);
    const { runId } = await startRun(server.url, 'fan');
    expect((await waitForEnd(runId)).status).toBe('completed');
    const events = await store.listRunEvents(runId);
    expect(await store.listChildRuns(runId, 'each')).toEqual([]);
    const snapshot = events.filter((e) => e.event_type === 'fan_out_instances');
    expect(snapshot).toHaveLength(1);
    expect(snapshot[0]!.data.instances).toMatchObject([{ ordinal: 0, item: 'a' }, { ordinal: 1, item: { k: 1 } }]);
    const [wrapper] = completions(events, 'each');
    expect((wrapper!.data as Record<string, any>).execution).toMatchObject({ node: { kind: 'compose_fan_out' }, accounting: 'aggregate' });
    expect(JSON.parse(wrapper!.data.node_output as string)).toEqual(['said a', 'said {"k":1}']);
    const [instance] = completions(events, 'each[1]');
    expect((instance!.data as Record<string, any>).execution).toMatchObject({
      node: { kind: 'compose_fan_out_instance' }, accounting: 'instance',
      diagnostics: { ordinal: 1, identity: (snapshot[0]!.data.instances as { identity: string }[])[1]!.identity },
    });
    expect(completions(events, 'each[1]/say')[0]!.data.node_output).toBe('said {"k":1}');
  });

  it('a resume after 3 failed instances re-runs those 3 only, over the first snapshot even though the producer now lists other items', async () => {
    const flags = await tempDir();
    await writeFlakyItemWorkflow(home, flags);
    await writeHomeWorkflow(home, 'flaky-fan', `name: flaky-fan
description: 10 items, 3 bad
nodes:
  - id: list
    always_run: true
    bash: 'if [ -e "${flags}/fixed" ]; then echo "[\\"other\\"]"; else echo "[\\"a\\",\\"bad1\\",\\"b\\",\\"c\\",\\"bad2\\",\\"d\\",\\"e\\",\\"bad3\\",\\"f\\",\\"g\\"]"; fi'
  - id: each
    depends_on: [list]
    workflow: flaky
    fan_out: { items: "$list.output", max_parallel: 4, join: all_success }
`);
    const { runId } = await startRun(server.url, 'flaky-fan');
    expect((await waitForEnd(runId)).status).toBe('failed');
    const failedFirst = (await store.listRunEvents(runId)).filter((e) => e.event_type === 'node_failed' && /^each\[\d+\]$/.test(e.step_name ?? ''));
    expect(failedFirst.map((e) => e.step_name).sort()).toEqual(['each[1]', 'each[4]', 'each[7]']);

    await writeFile(join(flags, 'fixed'), '');
    const res = await fetch(`${server.url}/api/workflows/runs/${runId}/resume`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await waitForEnd(runId)).status).toBe('completed');
    const events = await store.listRunEvents(runId);
    expect(JSON.parse(completions(events, 'each')[0]!.data.node_output as string)).toEqual(
      ['a', 'bad1', 'b', 'c', 'bad2', 'd', 'e', 'bad3', 'f', 'g'].map((i) => `done-${i}`),
    );
    const ran = (await readFile(join(flags, 'ran.log'), 'utf8')).trim().split('\n').sort();
    expect(ran).toEqual(['a', 'b', 'bad1', 'bad2', 'bad3', 'c', 'd', 'e', 'f', 'g']);
    expect(events.filter((e) => e.event_type === 'fan_out_instances')).toHaveLength(1);
    for (let i = 0; i < 10; i++) expect(completions(events, `each[${i}]`)).toHaveLength(1);
  });

  it('runs the shout-all example of docs/workflows.md as it says', async () => {
    const examples = new URL('../fixtures/workflows/examples/workflows/', import.meta.url);
    for (const name of ['shout-one', 'shout-all']) await writeHomeWorkflow(home, name, await readFile(new URL(`${name}.yaml`, examples), 'utf8'));
    const { runId } = await startRun(server.url, 'shout-all');
    expect((await waitForEnd(runId)).status).toBe('completed');
    const events = await store.listRunEvents(runId);
    expect(completions(events, 'report')[0]!.data.node_output).toBe('["ALPHA","BETA","GAMMA"]');
    expect(await store.listChildRuns(runId, 'each')).toEqual([]);
  });
});

// Killing the supervisor leaves a server in take-over: the test gets a server of its own.
describe('on a server of its own', () => {
  beforeEach(openServer);
  afterEach(() => home.close());

  it('an in-run fan-out whose supervisor is killed with -9 halfway finishes after take-over with every instance completed once', async () => {
    const flags = await tempDir();
    await writeHomeWorkflow(home, 'tick', `name: tick\ndescription: x\nnodes:\n  - id: work\n    bash: 'echo "$ARGUMENTS" >> "${flags}/ran.log"; sleep 0.2; printf "%s" "t-$ARGUMENTS"'\n`);
    await writeHomeWorkflow(home, 'crash-fan', `name: crash-fan
description: 40 items
nodes:
  - id: list
    bash: 'echo "[$(seq -s, 0 39)]"'
  - id: each
    depends_on: [list]
    workflow: tick
    fan_out: { items: "$list.output", max_parallel: 4, join: all_success }
`);
    const { runId } = await startRun(server.url, 'crash-fan');
    await waitFor(async () => {
      const text = await readFile(join(flags, 'ran.log'), 'utf8').catch(() => '');
      return text.trim().split('\n').length >= 16 ? true : undefined;
    }, { what: 'half the items to have run' });
    const supervisorPid = await server.pid('supervisor');
    process.kill(supervisorPid, 'SIGKILL');

    expect((await waitForEnd(runId, 90_000)).status).toBe('completed');
    expect(await server.pid('supervisor')).not.toBe(supervisorPid);
    const events = await store.listRunEvents(runId);
    expect(JSON.parse(completions(events, 'each')[0]!.data.node_output as string)).toEqual(Array.from({ length: 40 }, (_, i) => `t-${i}`));
    for (let i = 0; i < 40; i++) {
      expect(completions(events, `each[${i}]`)).toHaveLength(1);
      expect(completions(events, `each[${i}]/work`)).toHaveLength(1);
    }
    expect(events.filter((e) => e.event_type === 'fan_out_instances')).toHaveLength(1);
  });
});
