import { fanOutYaml } from '../test/helpers/workflows.js';
import { startHealthProbe, summarizeHealth, wallNow, type HealthLatency } from './health-probe.js';
import { addWorkflow, openSession, peakRssMiB, startPssSampler, startTimedRun, type PeakMemory, type Session } from './session.js';

/**
 * Cost against the size of a workflow, at N nodes (the targets are flat in N): how long
 * `POST /api/workflows/{name}/run` takes to answer for an N-node fan-out of `true` and for a
 * fan-in (N nodes, then one join depending on all N), the fan-out's throughput, the peak
 * memory of the three processes, and how `/health` answers throughout.
 *
 * "Cold" is the first POST after the file was written: it pays for reading, parsing and
 * validating the file. "Warm" is the next one, from the catalog's cache.
 */

export interface ScaleRow {
  nodes: number;
  fanOutColdMs: number;
  fanOutWarmMs: number;
  fanInColdMs: number;
  /** Nodes/s of the warm fan-out run, from just before its POST to its final status. */
  nodesPerSec: number;
  status: string;
  peak: PeakMemory | undefined;
  /** The largest sampled sum of Pss over the three processes (shared pages counted once), MiB. */
  peakPss: number | undefined;
  /** `/health` over the whole scenario: server start, the POSTs and both runs. */
  health: HealthLatency;
  /** `/health` while a POST was waiting for its answer. */
  healthDuringPosts: HealthLatency;
}

/** A fan-out of `count` nodes plus one node that depends on all of them. */
export function fanInYaml(name: string, count: number): string {
  const deps = Array.from({ length: count }, (_, i) => `n${i}`).join(', ');
  return `${fanOutYaml(name, count, 'true')}  - id: join\n    depends_on: [${deps}]\n    bash: "true"\n`;
}

/** Cancels a run and waits for its final status (cancelled, or completed if it won the race). */
async function cancelRun(session: Session, run: Awaited<ReturnType<typeof startTimedRun>>): Promise<void> {
  const res = await fetch(`${session.server.url}/api/workflows/runs/${run.runId}/cancel`, { method: 'POST' });
  await res.arrayBuffer();
  await run.finished();
}

export async function scale(nodes: number): Promise<ScaleRow> {
  const session = await openSession();
  const probe = startHealthProbe(session.server.url);
  const pss = await startPssSampler(session);
  const posts: [number, number][] = [];
  const post = async (name: string) => {
    const from = wallNow();
    const run = await startTimedRun(session, name);
    posts.push([from, wallNow()]);
    return run;
  };
  try {
    await addWorkflow(session, 'fan-in', fanInYaml('fan-in', nodes));
    const fanIn = await post('fan-in');
    await cancelRun(session, fanIn);

    await addWorkflow(session, 'fan-out', fanOutYaml('fan-out', nodes, 'true'));
    const cold = await post('fan-out');
    const first = await cold.finished();
    if (first.status !== 'completed') throw new Error(`the first ${nodes}-node fan-out ended ${first.status}`);
    const warm = await post('fan-out');
    const { ms, status } = await warm.finished();
    const peak = await peakRssMiB(session);
    const peakPss = await pss.stop();
    const samples = await probe.stop();
    return {
      nodes,
      fanOutColdMs: cold.postMs,
      fanOutWarmMs: warm.postMs,
      fanInColdMs: fanIn.postMs,
      nodesPerSec: nodes / (ms / 1000),
      status,
      peak,
      peakPss,
      health: summarizeHealth(samples),
      healthDuringPosts: summarizeHealth(samples, posts),
    };
  } finally {
    await probe.stop().catch(() => undefined);
    await pss.stop().catch(() => undefined);
    await session.close();
  }
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? 'n/a' : n.toFixed(digits));

/** The rows as a markdown section, for BENCHMARKS.md. */
export function formatScaleTable(rows: readonly ScaleRow[]): string {
  const lines = [
    '## Scale: N-node workflows',
    '',
    'POST times are from just before the request to its answer; cold is the first POST after the file was',
    'written (read + parse + validate), warm the next. Fan-in: N nodes then one join depending on all N.',
    'Nodes/s: the warm fan-out run, POST to final status. /health is polled every 20 ms from a process of its',
    'own from just after the server is up to the end (POSTs, a cancel, two runs); its max bounds the longest',
    "block of the API's event loop, or the API's wait for a CPU on a busy machine. Peak RSS sums each",
    "process's VmHWM, so pages the three share (the Node binary) count three times; peak Pss samples the",
    'sum of the three Pss every 50 ms, shared pages counted once.',
    '',
    '| nodes | POST fan-out cold / warm ms | POST fan-in cold ms | fan-out nodes/s | peak RSS MiB: all (launcher + API + supervisor) | peak Pss MiB, sampled | /health during POSTs: p99 / max ms | /health throughout: p50 / p99 / max ms (samples) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const p = r.peak;
    const mem = p ? `${fmt(p.total)} (${fmt(p.launcher)} + ${fmt(p.api)} + ${fmt(p.supervisor)})` : 'n/a';
    const rate = r.status === 'completed' ? fmt(r.nodesPerSec, 0) : r.status;
    const [h, hp] = [r.health, r.healthDuringPosts];
    lines.push(
      `| ${r.nodes} | ${fmt(r.fanOutColdMs, 0)} / ${fmt(r.fanOutWarmMs, 0)} | ${fmt(r.fanInColdMs, 0)} | ${rate} | ${mem} | ${fmt(r.peakPss)} | ` +
        `${fmt(hp.p99)} / ${fmt(hp.max, 0)} | ${fmt(h.p50)} / ${fmt(h.p99)} / ${fmt(h.max, 0)} (${h.samples}) |`,
    );
  }
  return lines.join('\n') + '\n';
}
