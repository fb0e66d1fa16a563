import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { peakOverlap } from '../helpers/overlap.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Several runs at once under a global limit (CAIRN_MAX_CONCURRENCY=3) and a per-run limit
 * (CAIRN_MAX_CONCURRENCY_PER_RUN=2), one of them a parent whose `workflow:` node runs a child run
 * and another a parent with a `child_runs` fan-out (max_parallel 2). Measured from the processes:
 * each bash node appends `<tag> <start ns> <end ns>` to $SPANS, the tag naming its run.
 * README (configuration): global limit on node attempts in flight; per-run limit.
 * docs/runs.md: "The parent waits without a slot ... the child's own nodes take theirs."
 * docs/workflows.md: max_parallel "items running at once ... within the global and per-run limits".
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});


const span = (tag: string) => `'a=$(date +%s%N); sleep 0.3; echo "${tag} $a $(date +%s%N)" >> "$SPANS"'`;
const timedNodes = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `  - id: n${i}\n    bash: ${span(tag)}\n`).join('');

it('keeps the global limit across runs, the per-run limit in each run and in each child run, and max_parallel of a child-run fan-out', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-limits-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  const spans = join(dir, 'spans.log');
  const server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '3', CAIRN_MAX_CONCURRENCY_PER_RUN: '2', SPANS: spans });
  await writeHomeWorkflow(home, 'busy-a', `name: busy-a\ndescription: four timed nodes\nnodes:\n${timedNodes('busy-a', 4)}`);
  await writeHomeWorkflow(home, 'busy-b', `name: busy-b\ndescription: four timed nodes\nnodes:\n${timedNodes('busy-b', 4)}`);
  await writeHomeWorkflow(home, 'kid', `name: kid\ndescription: four timed nodes in a child run\nnodes:\n${timedNodes('kid', 4)}`);
  await writeHomeWorkflow(home, 'parent', `name: parent\ndescription: a child run beside two timed nodes\nnodes:\n${timedNodes('parent', 2)}  - id: child\n    workflow: kid\n`);
  await writeHomeWorkflow(home, 'item', `name: item\ndescription: one timed item\nnodes:\n  - id: work\n    bash: ${span('item')}\n`);
  await writeHomeWorkflow(home, 'fan', `name: fan
description: six child runs, two at a time
nodes:
  - id: each
    workflow: item
    fan_out: { items: '[0,1,2,3,4,5]', max_parallel: 2, mode: child_runs }
`);
  const ids = [];
  for (const name of ['busy-a', 'parent', 'fan', 'busy-b']) ids.push((await startRun(server.url, name)).runId);
  for (const id of ids) {
    const detail = await waitFor(async () => {
      const d = await getRun(server.url, id);
      return ['completed', 'failed', 'cancelled'].includes(d.run.status) ? d : undefined;
    }, { what: `run ${id} to end`, timeoutMs: 90_000 });
    expect(detail.run.status).toBe('completed');
  }
  const rows = (await readFile(spans, 'utf8')).trim().split('\n').map((l) => l.split(' '));
  expect(rows).toHaveLength(4 + 4 + 4 + 2 + 6);
  const all = rows.map(([, s, e]) => [Number(s), Number(e)] as [number, number]);
  expect(peakOverlap(all)).toBeLessThanOrEqual(3);
  for (const tag of ['busy-a', 'busy-b', 'kid', 'parent', 'item']) {
    const own = rows.filter(([t]) => t === tag).map(([, s, e]) => [Number(s), Number(e)] as [number, number]);
    expect(peakOverlap(own), tag).toBeLessThanOrEqual(2);
  }
});
