import { startChatServerProcess } from './chat-server.js';
import { addWorkflow, cpuMs, openSession, timeRun, type Session } from './session.js';

/**
 * AI nodes at scale: N `prompt` nodes on the `openai-compatible` adapter against a local Chat
 * Completions server (in its own process) that answers each request after a fixed latency,
 * under a global limit. The
 * server-bound ideal is ceil(N / limit) × latency; the ratio says how close the engine gets. CPU
 * per node is the supervisor process's (main thread and worker threads) user+system time over
 * the run, divided by N. Run once without and once with a per-provider limit equal to the global
 * one, so the difference is the per-provider limiter's cost.
 *
 * The numbers are the steady state: V8 goes on compiling (TurboFan, on the second core) well
 * into the second run of a freshly started server (a quarter of the supervisor's CPU in that
 * run, by `perf`), so the first run is reported on its own, two more warm the server up, and
 * the median of the next three is the result.
 */

export interface AiNodesRow {
  nodes: number;
  /** Wall time of the first run after the server started (V8 compiling the code paths). */
  firstMs: number;
  /** Ratio to the ideal of each measured run, lowest first. */
  ratios: number[];
  limit: number;
  latencyMs: number;
  providerLimit: boolean;
  ms: number;
  status: string;
  idealMs: number;
  supervisorCpuMsPerNode: number;
  /** The API process, the local server's process and this bench process (its SSE client), per node. */
  apiCpuMsPerNode: number;
  serverCpuMsPerNode: number;
  clientCpuMsPerNode: number;
}

/** Runs after the first before measuring, and runs measured (their median is reported). */
const WARM_UP_RUNS = 2;
const MEASURED_RUNS = 3;

function promptFanOut(name: string, count: number): string {
  const nodes = Array.from({ length: count }, (_, i) => `  - id: p${i}\n    prompt: "item ${i}"`);
  return `name: ${name}\ndescription: ${count} prompts\nprovider: openai-compatible\nmodel: bench-model\nnodes:\n${nodes.join('\n')}\n`;
}

async function runOnce(nodes: number, limit: number, latencyMs: number, providerLimit: boolean): Promise<AiNodesRow> {
  const server = await startChatServerProcess(latencyMs);
  let session: Session | undefined;
  try {
    // The install config is read when the server starts: written first, into a fresh home.
    const config = providerLimit ? `concurrency:\n  providers:\n    openai-compatible: ${limit}\n` : undefined;
    session = await openSession({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-bench', CAIRN_MAX_CONCURRENCY: String(limit) }, config);
    await addWorkflow(session, 'prompts', promptFanOut('prompts', nodes));
    const idealMs = Math.ceil(nodes / limit) * latencyMs;
    const first = await timeRun(session, 'prompts');
    for (let i = 0; i < WARM_UP_RUNS; i++) await timeRun(session, 'prompts');
    const supervisor = await session.server.pid('supervisor');
    const api = await session.server.pid('api');
    const before = await cpuMs(supervisor);
    const apiBefore = await cpuMs(api);
    const serverBefore = await cpuMs(server.pid);
    const ownBefore = process.cpuUsage();
    const runs: { ms: number; status: string }[] = [];
    for (let i = 0; i < MEASURED_RUNS; i++) runs.push(await timeRun(session, 'prompts'));
    const after = await cpuMs(supervisor);
    const apiAfter = await cpuMs(api);
    const serverAfter = await cpuMs(server.pid);
    const own = process.cpuUsage(ownBefore);
    const measured = MEASURED_RUNS * nodes;
    runs.sort((a, b) => a.ms - b.ms);
    const median = runs[Math.floor(runs.length / 2)]!;
    const failed = [first, ...runs].find((r) => r.status !== 'completed');
    return {
      nodes, limit, latencyMs, providerLimit, ms: median.ms, status: failed?.status ?? 'completed',
      firstMs: first.ms,
      ratios: runs.map((r) => idealMs / r.ms).sort((a, b) => a - b),
      idealMs,
      supervisorCpuMsPerNode: (after - before) / measured,
      apiCpuMsPerNode: (apiAfter - apiBefore) / measured,
      serverCpuMsPerNode: (serverAfter - serverBefore) / measured,
      clientCpuMsPerNode: (own.user + own.system) / 1000 / measured,
    };
  } finally {
    await session?.close();
    await server.close();
  }
}

/**
 * 1000 prompts without and with a per-provider limit (the limiter's cost), then 5000 and 10,000
 * without (a node's cost must not grow with the workflow).
 */
export async function aiNodes(): Promise<AiNodesRow[]> {
  const rows: AiNodesRow[] = [];
  for (const [nodes, providerLimit] of [[1000, false], [1000, true], [5000, false], [10_000, false]] as const) {
    rows.push(await runOnce(nodes, 32, 20, providerLimit));
  }
  return rows;
}

export function formatAiNodesTable(rows: readonly AiNodesRow[]): string {
  const lines = [
    '## AI nodes: prompts on openai-compatible, local server answering in 20 ms',
    '',
    'Ideal: ceil(N / limit) × latency, what the server alone allows. Steady state: the median of',
    `${MEASURED_RUNS} runs after ${WARM_UP_RUNS + 1} warm-up runs (ratio range in brackets); the first run after the server started`,
    'is shown on its own. CPU: the supervisor process (main thread and worker threads), user +',
    'system, over the measured runs, per node; the API process, the local server (a process of its',
    'own, bench/chat-server.ts) and the bench process (its SSE client) the same way.',
    '',
    '| nodes | global limit | per-provider limit | first run ms | wall ms (median) | ideal ms | ideal / wall | supervisor CPU ms per node | API / server / SSE client CPU ms per node |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const ratio = r.status === 'completed' ? `${(r.idealMs / r.ms).toFixed(2)} (${r.ratios[0]!.toFixed(2)}–${r.ratios.at(-1)!.toFixed(2)})` : r.status;
    lines.push(
      `| ${r.nodes} | ${r.limit} | ${r.providerLimit ? String(r.limit) : 'none'} | ${r.firstMs.toFixed(0)} | ${r.ms.toFixed(0)} | ${r.idealMs} | ${ratio} | ${r.supervisorCpuMsPerNode.toFixed(2)} | ${r.apiCpuMsPerNode.toFixed(2)} / ${r.serverCpuMsPerNode.toFixed(2)} / ${r.clientCpuMsPerNode.toFixed(2)} |`,
    );
  }
  return lines.join('\n') + '\n';
}
