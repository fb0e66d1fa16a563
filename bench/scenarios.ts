import { openStore, sqliteStoreConfig } from '../src/store/open-store.js';
import { openSse } from '../test/helpers/sse.js';
import { fanOutYaml, getRun, startRun } from '../test/helpers/workflows.js';
import { waitFor } from '../test/helpers/wait-for.js';
import { addWorkflow, cpuMs, openSession, peakRssMiB, percentile, timeRun, type PeakMemory } from './session.js';
import { spawnCeiling } from './spawn-ceiling.js';

export interface FanOutRow {
  limit: number;
  nodesPerSec: number;
  ceilingPerSec: number;
  /** The same loop spawning `bash -c true`, which is what a `bash: true` node runs. */
  bashCeilingPerSec: number;
  /** The supervisor's CPU (main thread and worker threads, user + system) per node of the timed run. */
  supervisorCpuMsPerNode: number;
  peak: PeakMemory | undefined;
}

/** 1000 × `true` at a global limit, beside the plain spawn ceiling at the same parallelism. */
export async function fanOut(limit: number, nodes = 1000): Promise<FanOutRow> {
  const ceilingPerSec = await spawnCeiling(nodes, limit);
  const bashCeilingPerSec = await spawnCeiling(nodes, limit, ['bash', '-c', 'true']);
  const session = await openSession({ CAIRN_MAX_CONCURRENCY: String(limit) });
  try {
    await addWorkflow(session, 'wide', fanOutYaml('wide', nodes, 'true'));
    await timeRun(session, 'wide'); // warm-up: threads, statements, page cache
    const supervisor = await session.server.pid('supervisor');
    const cpuBefore = await cpuMs(supervisor);
    const { ms, status } = await timeRun(session, 'wide');
    const supervisorCpuMsPerNode = ((await cpuMs(supervisor)) - cpuBefore) / nodes;
    if (status !== 'completed') throw new Error(`fan-out ended ${status}`);
    return { limit, nodesPerSec: nodes / (ms / 1000), ceilingPerSec, bashCeilingPerSec, supervisorCpuMsPerNode, peak: await peakRssMiB(session) };
  } finally {
    await session.close();
  }
}

function chainYaml(length: number): string {
  const nodes = Array.from({ length }, (_, i) =>
    i === 0 ? `  - id: n0\n    bash: "true"` : `  - id: n${i}\n    depends_on: [n${i - 1}]\n    bash: "true"`,
  );
  return `name: chain\ndescription: a sequential chain\nnodes:\n${nodes.join('\n')}\n`;
}

export interface ChainResult {
  /** POST to the run's final status, per node: the median of the timed runs. */
  msPerNode: number;
  /** One `bash -c true` spawned and waited for, one at a time, in a fresh Node process (same run). */
  serialSpawnMs: number;
  /** The supervisor's CPU (main thread and worker threads, user + system) per node, over the timed runs. */
  supervisorCpuMsPerNode: number;
}

/**
 * A 100-node sequential chain: ms per node from POST to the run's final status, beside what a
 * serial `bash -c true` costs on its own measured in the same run (the target is the difference).
 */
export async function chain(length = 100, repeats = 3): Promise<ChainResult> {
  const serialSpawnMs = 1000 / (await spawnCeiling(length, 1, ['bash', '-c', 'true']));
  const session = await openSession();
  try {
    await addWorkflow(session, 'chain', chainYaml(length));
    await timeRun(session, 'chain');
    const supervisor = await session.server.pid('supervisor');
    const cpuBefore = await cpuMs(supervisor);
    const samples: number[] = [];
    for (let i = 0; i < repeats; i++) samples.push((await timeRun(session, 'chain')).ms / length);
    const supervisorCpuMsPerNode = ((await cpuMs(supervisor)) - cpuBefore) / (repeats * length);
    return { msPerNode: percentile(samples, 50), serialSpawnMs, supervisorCpuMsPerNode };
  } finally {
    await session.close();
  }
}

const wallMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

/** From just before the POST to the first node's process running, in ms (the node prints its
 * own start time). */
export async function firstNode(repeats = 50): Promise<{ p50: number; p99: number }> {
  const session = await openSession();
  try {
    await addWorkflow(session, 'first', 'name: first\ndescription: one node\nnodes:\n  - id: a\n    bash: date +%s%6N\n');
    const samples: number[] = [];
    for (let i = 0; i < repeats + 1; i++) {
      const t0 = wallMicros();
      const { runId } = await startRun(session.server.url, 'first');
      const started = await waitFor(async () => {
        const { events } = await getRun(session.server.url, runId);
        return events.find((e) => e.event_type === 'node_completed')?.data.node_output as string | undefined;
      }, { intervalMs: 5 });
      if (i > 0) samples.push((Number(started) - t0) / 1000);
    }
    return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  } finally {
    await session.close();
  }
}

/** 100 dashboard clients; events written through a separate store connection (the path a
 * worker uses); latency from just before the write to each client's receipt. */
export async function sseLatency(clients = 100, events = 200): Promise<{ p50: number; p99: number; samples: number }> {
  const session = await openSession();
  try {
    await addWorkflow(session, 'one', 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: "true"\n');
    const { runId, conversationId } = await startRun(session.server.url, 'one');
    await waitFor(async () => (await getRun(session.server.url, runId)).run.status === 'completed');
    const received = new Map<number, number[]>();
    const streams = await Promise.all(
      Array.from({ length: clients }, () => openSse(`${session.server.url}/api/stream/__dashboard__`)),
    );
    for (const s of streams) {
      const original = s.frames.push.bind(s.frames);
      s.frames.push = (...frames) => {
        const now = performance.now();
        for (const f of frames) if (f.id !== undefined) received.set(f.id, [...(received.get(f.id) ?? []), now]);
        return original(...frames);
      };
    }
    const store = openStore(sqliteStoreConfig(session.home.paths.database));
    const sent = new Map<number, number>();
    for (let i = 0; i < events; i++) {
      const t = performance.now();
      const [row] = await store.appendEvents([
        { run_id: runId, conversation_id: conversationId, event_type: 'bench_probe', step_name: null, data: { i } },
      ]);
      sent.set(row!.seq, t);
      await new Promise((r) => setTimeout(r, 5));
    }
    await waitFor(() => [...sent.keys()].every((seq) => (received.get(seq)?.length ?? 0) === clients), { timeoutMs: 60_000 });
    streams.forEach((s) => s.close());
    await store.close();
    const latencies = [...sent].flatMap(([seq, t]) => received.get(seq)!.map((r) => r - t));
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length };
  } finally {
    await session.close();
  }
}
