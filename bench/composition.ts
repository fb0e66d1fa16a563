import { readFile } from 'node:fs/promises';
import { fanOutYaml } from '../test/helpers/workflows.js';
import { addWorkflow, openSession, timeRun, type Session } from './session.js';

/**
 * Composition (issue 13): an in-run fan-out against the same nodes written as a plain DAG, child
 * runs' overhead, and the supervisor's memory over a large in-run fan-out. Each measure starts its
 * own real server; each run is timed from just before its POST to its final status on the stream.
 */

const one = 'name: one\ndescription: one bash node\nnodes:\n  - id: work\n    bash: "true"\n';
const items = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
const fanYaml = (name: string, n: number, maxParallel: number, mode: 'in_run' | 'child_runs') =>
  `name: ${name}\ndescription: ${n} items\nnodes:\n  - id: each\n    workflow: one\n    fan_out: { items: '${items(n)}', max_parallel: ${maxParallel}, join: all_success, mode: ${mode} }\n`;

async function timed(session: Session, name: string): Promise<number> {
  const { ms, status } = await timeRun(session, name);
  if (status !== 'completed') throw new Error(`${name} ended ${status}`);
  return ms;
}

export interface InRunRow {
  items: number;
  limit: number;
  dagPerSec: number;
  inRunPerSec: number;
}

/** 1000 `bash: true` items as an in-run fan-out, and the same 1000 nodes as a plain DAG, in one server (warm runs, alternated). */
export async function inRunVsDag(n = 1000, limit = 8, repeats = 2): Promise<InRunRow> {
  const session = await openSession({ CAIRN_MAX_CONCURRENCY: String(limit) });
  try {
    await addWorkflow(session, 'one', one);
    await addWorkflow(session, 'wide', fanOutYaml('wide', n, 'true'));
    await addWorkflow(session, 'fan', fanYaml('fan', n, limit, 'in_run'));
    await timed(session, 'wide');
    await timed(session, 'fan');
    const dag: number[] = [];
    const fan: number[] = [];
    for (let i = 0; i < repeats; i++) {
      dag.push(await timed(session, 'wide'));
      fan.push(await timed(session, 'fan'));
    }
    const best = (xs: number[]) => Math.min(...xs);
    return { items: n, limit, dagPerSec: n / (best(dag) / 1000), inRunPerSec: n / (best(fan) / 1000) };
  } finally {
    await session.close();
  }
}

export interface ChildRunsRow {
  children: number;
  maxParallel: number;
  childRunsMs: number;
  dagMs: number;
  /** (child runs' wall time − the same nodes as a plain DAG's) / children. */
  overheadMsPerChild: number;
}

/** 200 child runs of a one-node workflow at max_parallel 16, beside 200 plain nodes at a limit of 16. */
export async function childRunsOverhead(n = 200, maxParallel = 16): Promise<ChildRunsRow> {
  const session = await openSession({ CAIRN_MAX_CONCURRENCY: String(maxParallel) });
  try {
    await addWorkflow(session, 'one', one);
    await addWorkflow(session, 'wide', fanOutYaml('wide', n, 'true'));
    await addWorkflow(session, 'kids', fanYaml('kids', n, maxParallel, 'child_runs'));
    await timed(session, 'wide');
    await timed(session, 'kids');
    const dagMs = await timed(session, 'wide');
    const childRunsMs = await timed(session, 'kids');
    return { children: n, maxParallel, childRunsMs, dagMs, overheadMsPerChild: (childRunsMs - dagMs) / n };
  } finally {
    await session.close();
  }
}

async function supervisorKiB(session: Session, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${await session.server.pid('supervisor')}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]);
}

/** The supervisor's peak resident memory over a 10,000-item in-run fan-out, above its resident memory when idle. */
export interface FanOutMemoryRow {
  items: number;
  idleMiB: number;
  peakMiB: number;
  aboveIdleMiB: number;
  ms: number;
  /** GET of the finished fan-out's grid (100 items a page): the first page, then the median of the next five. */
  gridFirstMs: number;
  gridNextMs: number;
}

export async function fanOutMemory(n = 10_000, limit = 8): Promise<FanOutMemoryRow> {
  const session = await openSession({ CAIRN_MAX_CONCURRENCY: String(limit) });
  try {
    await addWorkflow(session, 'one', one);
    await addWorkflow(session, 'big', fanYaml('big', n, limit, 'in_run'));
    const idle = await supervisorKiB(session, 'VmRSS');
    const { ms, status, runId } = await timeRun(session, 'big');
    if (status !== 'completed') throw new Error(`big ended ${status}`);
    const peak = await supervisorKiB(session, 'VmHWM');
    const pageMs: number[] = [];
    for (let page = 0; page < 6; page++) {
      const t0 = performance.now();
      const res = await fetch(`${session.server.url}/api/workflows/runs/${runId}/fan-out/each?limit=100&offset=${page * 100}`);
      if (res.status !== 200) throw new Error(`grid page ${page}: HTTP ${res.status}`);
      await res.arrayBuffer();
      pageMs.push(performance.now() - t0);
    }
    const next = pageMs.slice(1).sort((a, b) => a - b);
    return {
      items: n, idleMiB: idle / 1024, peakMiB: peak / 1024, aboveIdleMiB: (peak - idle) / 1024, ms,
      gridFirstMs: pageMs[0]!, gridNextMs: next[Math.floor(next.length / 2)]!,
    };
  } finally {
    await session.close();
  }
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

export function formatCompositionTable(r: { inRun?: InRunRow; children?: ChildRunsRow; memory?: FanOutMemoryRow }): string {
  const lines = ['## Composition: fan-out\n', '| measure | result | target |', '|---|---:|---:|'];
  if (r.inRun) {
    const { inRun: x } = r;
    lines.push(`| ${x.items} × \`bash: true\`, limit ${x.limit}: plain DAG / in-run fan-out, items/s | ${fmt(x.dagPerSec, 0)} / ${fmt(x.inRunPerSec, 0)} (ratio ${fmt(x.inRunPerSec / x.dagPerSec, 2)}) | ratio ≥ 0.8 |`);
  }
  if (r.children) {
    const { children: c } = r;
    lines.push(`| ${c.children} child runs of a one-node workflow, max_parallel ${c.maxParallel}: wall ms (plain DAG of the same nodes) | ${fmt(c.childRunsMs, 0)} (${fmt(c.dagMs, 0)}) | — |`);
    lines.push(`| per-child overhead beyond its node: (child runs − plain DAG) / children | ${fmt(c.overheadMsPerChild, 2)} ms | ≤ 5 ms |`);
  }
  if (r.memory) {
    const { memory: m } = r;
    lines.push(`| supervisor memory, ${m.items}-item in-run fan-out (${fmt(m.ms / 1000)} s): idle RSS / peak RSS / above idle | ${fmt(m.idleMiB)} / ${fmt(m.peakMiB)} / ${fmt(m.aboveIdleMiB)} MiB | ≤ 150 MiB above idle |`);
    lines.push(`| its grid (GET …/fan-out/each, 100 items a page): first page / next pages (median of 5) | ${fmt(m.gridFirstMs, 0)} / ${fmt(m.gridNextMs, 1)} ms | — |`);
  }
  return `${lines.join('\n')}\n`;
}
