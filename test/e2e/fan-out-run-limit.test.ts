import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { peakOverlap } from '../helpers/overlap.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * An in-run fan-out stays inside its run's own limit (`concurrency.perRun`), whatever its
 * `max_parallel`: its instance nodes take the run's slots as the scheduler's nodes do. Measured
 * from the start and end moments each item writes, also across a kill -9 of the supervisor.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});


/** A timed span, `<item> <start> <end>` (a plain node's first field is not an item), appended to $SPANS. */
const SPAN = `a=$(date +%s%N); sleep 0.3; echo "$ARGUMENTS $a $(date +%s%N)" >> "$SPANS"`;

/**
 * A server with a global limit of 8 and a per-run limit of 3, and a workflow `fan` running
 * `items` timed items in one in-run fan-out (max_parallel 10), with a plain timed node beside it
 * when `beside` is set. Returns the spans file.
 */
async function timedFanOut(items: number, beside: boolean) {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-perrun-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  const spans = join(dir, 'spans.log');
  const server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '8', CAIRN_MAX_CONCURRENCY_PER_RUN: '3', SPANS: spans });
  await writeHomeWorkflow(home, 'item', `name: item\ndescription: one timed item\nnodes:\n  - id: work\n    bash: '${SPAN}'\n`);
  const list = Array.from({ length: items }, (_, i) => i).join(',');
  await writeHomeWorkflow(home, 'fan', `name: fan
description: ${items} items under the run's limit
nodes:
  - id: each
    workflow: item
    fan_out: { items: '[${list}]', max_parallel: 10, mode: in_run }
${beside ? `  - id: beside\n    bash: '${SPAN}'\n` : ''}`);
  return { server, spans };
}

async function readSpans(file: string): Promise<[number, number, number][]> {
  return (await readFile(file, 'utf8')).trim().split('\n').map((l) => l.split(' ').map(Number) as [number, number, number]);
}

async function runEnd(runId: string, timeoutMs: number) {
  const store = home.openStore();
  const run = await waitFor(async () => {
    const r = await store.getRun(runId);
    return r && ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  }, { what: 'the run to end', timeoutMs });
  return { store, run };
}

it('runs an in-run fan-out with max_parallel 10 at most 3 at a time under a per-run limit of 3, next to a plain node', async () => {
  const { server, spans } = await timedFanOut(12, true);
  const { runId } = await startRun(server.url, 'fan');
  const { run } = await runEnd(runId, 60_000);
  expect(run.status).toBe('completed');
  const timed = await readSpans(spans);
  expect(timed).toHaveLength(13);
  expect(peakOverlap(timed.map(([, start, end]) => [start, end]))).toBe(3);
});

it('keeps the per-run limit and runs no item twice at once when the supervisor is killed with -9 in the middle of the fan-out', async () => {
  const { server, spans: spansFile } = await timedFanOut(30, false);
  const { runId } = await startRun(server.url, 'fan');
  await waitFor(async () => {
    const text = await readFile(spansFile, 'utf8').catch(() => '');
    return text.trim().split('\n').length >= 9 ? true : undefined;
  }, { what: 'a third of the items to have run', timeoutMs: 30_000 });
  const killed = await server.pid('supervisor');
  process.kill(killed, 'SIGKILL');

  const { store, run } = await runEnd(runId, 90_000);
  expect(run.status).toBe('completed');
  expect(await server.pid('supervisor')).not.toBe(killed);
  const events = await store.listRunEvents(runId);
  for (let i = 0; i < 30; i++) {
    expect(events.filter((e) => e.event_type === 'node_completed' && e.step_name === `each[${i}]`), `item ${i}`).toHaveLength(1);
  }
  // Every span that finished: never more than 3 at once, across both supervisors, and no item
  // running twice at the same time (a killed supervisor's child left running beside its rerun).
  const spans = await readSpans(spansFile);
  expect(peakOverlap(spans.map(([, s, e]) => [s, e]))).toBeLessThanOrEqual(3);
  for (let i = 0; i < 30; i++) {
    const own = spans.filter(([item]) => item === i).map(([, s, e]) => [s, e] as [number, number]);
    expect(own.length, `item ${i}`).toBeGreaterThanOrEqual(1);
    expect(peakOverlap(own), `item ${i}`).toBe(1);
  }
});
