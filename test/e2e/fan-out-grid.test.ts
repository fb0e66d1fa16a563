import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeFlakyItemWorkflow, writeHomeWorkflow } from '../helpers/workflows.js';

/** The fan-out grid: GET …/fan-out/{nodeId} (paged) and POST …/fan-out/{nodeId}/retry, through the real server. */

let home: TempHome;
let server: RunningServer;
let store: Store;
let flags: string;
beforeEach(async () => {
  home = await makeTempHome();
  server = await startServer(home);
  store = home.openStore();
  flags = await mkdtemp(join(tmpdir(), 'cairn-grid-'));
  home.defer(() => rm(flags, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
});

async function waitForEnd(runId: string) {
  return waitFor(async () => {
    const run = await store.getRun(runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  }, { what: `run ${runId} to end` });
}
const grid = async (runId: string, nodeId: string, query = '') => {
  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/fan-out/${encodeURIComponent(nodeId)}${query}`);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe.each(['in_run', 'child_runs'])('with %s items', (mode) => {
  it('lists every item with its status, attempts and output, paged; retry runs only the failed items again and joins again', async () => {
    await writeFlakyItemWorkflow(home, flags);
    await writeHomeWorkflow(home, 'gridded', `name: gridded
description: 5 items, 2 bad, joined all_done
nodes:
  - id: each
    workflow: flaky
    fan_out: { items: '["a","bad1","b","bad2","c"]', max_parallel: 2, join: all_done, mode: ${mode} }
  - id: after
    depends_on: [each]
    bash: 'printf "%s" "$each.output" | grep -o done- | wc -l'
`);
    const { runId } = await startRun(server.url, 'gridded');
    expect((await waitForEnd(runId)).status).toBe('completed');

    const first = await grid(runId, 'each', '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ runId, nodeId: 'each', mode, total: 5, nextOffset: 2, counts: { completed: 3, failed: 2, pending: 0 } });
    expect(first.body.items.map((i: any) => [i.index, i.item, i.status, i.attempts])).toEqual([[0, 'a', 'completed', 1], [1, 'bad1', 'failed', 1]]);
    expect(first.body.items[0]).toMatchObject({ outputPreview: 'done-a', error: null });
    expect(first.body.items[1].error).toBeTruthy();
    expect(first.body.items[0].durationMs).toBeGreaterThanOrEqual(0);
    if (mode === 'child_runs') expect(first.body.items[0].childRunId).toEqual(expect.any(String));
    else expect(first.body.items[0].identity).toEqual(expect.any(String));
    const last = await grid(runId, 'each', '?limit=2&offset=4');
    expect(last.body.items.map((i: any) => i.item)).toEqual(['c']);
    expect(last.body.nextOffset).toBeNull();

    await writeFile(join(flags, 'fixed'), '');
    const retry = await fetch(`${server.url}/api/workflows/runs/${runId}/fan-out/each/retry`, { method: 'POST' });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ success: true, retried: 2 });
    expect((await waitForEnd(runId)).status).toBe('completed');
    const again = await grid(runId, 'each');
    expect(again.body.counts).toMatchObject({ completed: 5, failed: 0 });
    expect(again.body.items.map((i: any) => i.attempts)).toEqual([1, 2, 1, 2, 1]);
    // Only the two failed items ran again; the join and the node after it were made again.
    expect((await readFile(join(flags, 'ran.log'), 'utf8')).trim().split('\n').sort()).toEqual(['a', 'b', 'bad1', 'bad2', 'c']);
    const afters = (await store.listRunEvents(runId)).filter((e) => e.event_type === 'node_completed' && e.step_name === 'after');
    expect(afters.map((e) => e.data.node_output)).toEqual(['3', '5']);

    const none = await fetch(`${server.url}/api/workflows/runs/${runId}/fan-out/each/retry`, { method: 'POST' });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: string }).error).toBe("Fan-out node 'each' has no failed items to retry");
  });
});

it('refuses a node that is not there or not a fan-out, and hostile node ids, with a 4xx naming the problem', async () => {
  await writeHomeWorkflow(home, 'plain', `name: plain\ndescription: x\nnodes:\n  - id: one\n    bash: echo hi\n`);
  const { runId } = await startRun(server.url, 'plain');
  await waitForEnd(runId);
  const notFanOut = await grid(runId, 'one');
  expect(notFanOut).toMatchObject({ status: 400, body: { error: "Node 'one' of workflow 'plain' is not a fan-out (a workflow: node with fan_out)" } });
  const missing = await grid(runId, 'nope');
  expect(missing).toMatchObject({ status: 404, body: { error: "Workflow 'plain' has no node 'nope'" } });
  for (const hostile of ['../../etc/passwd', "x'; DROP TABLE events; --", 'a\u0000b', 'x'.repeat(5000)]) {
    const res = await grid(runId, hostile);
    expect(res.status, hostile.slice(0, 40)).toBeGreaterThanOrEqual(400);
    expect(res.status, hostile.slice(0, 40)).toBeLessThan(500);
  }
  expect((await grid('no-such-run', 'x')).status).toBe(404);
  expect((await grid(runId, 'one', '?limit=0')).status).toBe(400);
  const running = await fetch(`${server.url}/api/workflows/runs/${runId}/fan-out/one/retry`, { method: 'POST' });
  expect(running.status).toBe(400);
});
