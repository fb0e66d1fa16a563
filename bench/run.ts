import { cpus, totalmem } from 'node:os';
import { chain, fanOut, firstNode, sseLatency, type FanOutRow } from './scenarios.js';
import { formatLifecycleTable, lifecycle } from './lifecycle.js';
import { formatScaleTable, scale, type ScaleRow } from './scale.js';
import { workflowList } from './workflow-list.js';
import { dashboardPages, formatDashboardTable } from './dashboard.js';
import { aiNodes, formatAiNodesTable } from './ai-nodes.js';
import { formatSdkFetchTable, sdkFetchComparison } from './sdk-fetch.js';
import { formatRouteFuzzTable, routeFuzz } from './route-fuzz.js';
import { childRunsOverhead, fanOutMemory, formatCompositionTable, inRunVsDag } from './composition.js';
import { agentActivity, formatAgentActivityTable } from './agent-activity.js';
import { formatServerStartTable, serverStart } from './server-start.js';
import { formatWebUiTable, webUi } from './web-ui.js';
import { formatScheduleTicksTable, scheduleTicks } from './schedule-ticks.js';
import { formatWebhookAcksTable, webhookAcks } from './webhook-acks.js';
import { formatPostgresTable, postgresBench } from './postgres.js';

/**
 * `npm run bench`: measures the spine on this machine and prints tables (markdown, so the
 * output can go straight into BENCHMARKS.md). Each scenario starts its own real server.
 */
const fmt = (n: number | undefined, digits = 1) => (n === undefined ? 'n/a' : n.toFixed(digits));

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const want = (name: string) => only.length === 0 || only.includes(name);
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`);
  console.log(`Date: ${new Date().toISOString().slice(0, 10)}\n`);

  if (want('fanout')) {
    const rows: FanOutRow[] = [];
    for (const limit of [1, 4, 8, 16]) rows.push(await fanOut(limit));
    console.log('## Fan-out: 1000 × `true`\n');
    console.log('| limit | nodes/s | ceiling: `true` /s | ratio | ceiling: `bash -c true` /s | ratio | supervisor CPU ms per node | peak RSS MiB: all (launcher + API + supervisor) |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const p = r.peak;
      const mem = p ? `${fmt(p.total)} (${fmt(p.launcher)} + ${fmt(p.api)} + ${fmt(p.supervisor)})` : 'n/a';
      const ratio = (ceiling: number) => fmt(r.nodesPerSec / ceiling, 2);
      console.log(
        `| ${r.limit} | ${fmt(r.nodesPerSec, 0)} | ${fmt(r.ceilingPerSec, 0)} | ${ratio(r.ceilingPerSec)} | ${fmt(r.bashCeilingPerSec, 0)} | ${ratio(r.bashCeilingPerSec)} | ${fmt(r.supervisorCpuMsPerNode, 2)} | ${mem} |`,
      );
    }
    console.log();
  }
  if (want('scale')) {
    const rows: ScaleRow[] = [];
    for (const nodes of [1000, 5000, 10000]) rows.push(await scale(nodes));
    console.log(formatScaleTable(rows));
  }
  if (want('dashboard')) console.log(formatDashboardTable(await dashboardPages()));
  if (want('lifecycle')) console.log(formatLifecycleTable(await lifecycle()));
  if (want('ai')) console.log(formatAiNodesTable(await aiNodes()));
  if (want('fetch')) console.log(formatSdkFetchTable(await sdkFetchComparison()));
  if (want('composition')) {
    console.log(formatCompositionTable({ inRun: await inRunVsDag(), children: await childRunsOverhead(), memory: await fanOutMemory() }));
  }
  if (want('activity')) console.log(formatAgentActivityTable(await agentActivity()));
  if (want('fuzz')) console.log(formatRouteFuzzTable(await routeFuzz()));
  if (want('start')) console.log(formatServerStartTable(await serverStart()));
  if (want('web')) console.log(formatWebUiTable(await webUi()));
  // `npm run bench -- schedule` (1,000 one-second ticks: about 17 minutes); BENCH_SCHEDULE_TICKS shortens it.
  if (want('schedule')) console.log(formatScheduleTicksTable(await scheduleTicks(Number(process.env.BENCH_SCHEDULE_TICKS ?? 1_000))));
  // `npm run bench -- webhooks`: 100 signed deliveries per second (BENCH_WEBHOOK_RATE) for 10 s.
  if (want('webhooks')) console.log(formatWebhookAcksTable(await webhookAcks(Number(process.env.BENCH_WEBHOOK_RATE ?? 100))));
  // `npm run bench -- pg`: the PostgreSQL store against SQLite (a local cluster, as the tests start one).
  if (want('pg')) console.log(formatPostgresTable(await postgresBench()));
  const rows: string[] = [];
  if (want('chain')) {
    const c = await chain();
    rows.push(`| 100-node chain, per node (POST → done) | ${fmt(c.msPerNode, 2)} ms |`);
    rows.push(`| the same beyond a serial \`bash -c true\` spawn (${fmt(c.serialSpawnMs, 2)} ms, same run) | ${fmt(c.msPerNode - c.serialSpawnMs, 2)} ms |`);
    rows.push(`| the chain's supervisor CPU per node | ${fmt(c.supervisorCpuMsPerNode, 2)} ms |`);
  }
  if (want('first')) {
    const f = await firstNode();
    rows.push(`| POST → first node running, p50 / p99 | ${fmt(f.p50)} / ${fmt(f.p99)} ms |`);
  }
  if (want('sse')) {
    const s = await sseLatency();
    rows.push(`| SSE latency, 100 clients, p50 / p99 (${s.samples} deliveries) | ${fmt(s.p50, 2)} / ${fmt(s.p99, 2)} ms |`);
  }
  if (want('workflows')) {
    const w = await workflowList();
    rows.push(`| GET /api/workflows over ${w.files} files, cached, p50 / p99 | ${fmt(w.p50, 2)} / ${fmt(w.p99, 2)} ms |`);
  }
  if (rows.length) {
    console.log('## Latency\n');
    console.log('| measure | result |');
    console.log('|---|---:|');
    rows.forEach((r) => console.log(r));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
