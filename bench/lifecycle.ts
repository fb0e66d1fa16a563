import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '../test/helpers/wait-for.js';
import { getRun, startRun } from '../test/helpers/workflows.js';
import { addWorkflow, openSession, percentile, type Session } from './session.js';

/**
 * The run lifecycle on this machine, through a real `cairn serve`:
 * - resume of a 1000-node run whose 999 nodes succeeded and whose last failed: from just before
 *   POST …/resume to its answer, and to the remaining node's process starting;
 * - approve of a paused gate: from just before POST …/approve to the next node's process starting;
 * - the supervisor's resident memory with 1000 paused runs against none.
 * A node's start is the wall-clock time its own shell writes (`date +%s%N`), so no polling delay
 * is counted.
 */

export interface LifecycleResult {
  resume: { nodes: number; postMs: number; startedMs: number };
  approve: { samples: number; p50: number; p99: number };
  memory: { paused: number; noneMiB: number; pausedMiB: number };
}

const wallMs = () => performance.timeOrigin + performance.now();

async function startedAt(file: string): Promise<number> {
  const text = await waitFor(async () => (existsSync(file) ? (await readFile(file, 'utf8')).trim() || undefined : undefined), {
    what: `${file} to be written`, timeoutMs: 120_000,
  });
  return Number(BigInt(text) / 1_000_000n);
}

async function settled(session: Session, runId: string, statuses: string[]): Promise<string> {
  const detail = await waitFor(async () => {
    const d = await getRun(session.server.url, runId);
    return statuses.includes(d.run.status) ? d : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs: 600_000, intervalMs: 100 });
  return detail.run.status;
}

const post = (session: Session, runId: string, op: string) =>
  fetch(`${session.server.url}/api/workflows/runs/${runId}/${op}`, { method: 'POST' }).then(async (r) => {
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`${op} ${runId}: ${r.status}`);
  });

async function resumeScenario(session: Session, nodes: number): Promise<LifecycleResult['resume']> {
  const dir = session.home.home;
  const flag = join(dir, 'ready.flag');
  const out = join(dir, 'last.started');
  const deps = Array.from({ length: nodes - 1 }, (_, i) => `n${i}`);
  const yaml = [
    'name: resume-bench', 'description: 999 successes, then a node that fails until a flag exists', 'nodes:',
    ...deps.map((id) => `  - id: ${id}\n    bash: "true"`),
    `  - id: last\n    depends_on: [${deps.join(', ')}]\n    bash: 'test -e "${flag}" && date +%s%N > "${out}"'`,
  ].join('\n');
  await addWorkflow(session, 'resume-bench', `${yaml}\n`);
  const { runId } = await startRun(session.server.url, 'resume-bench');
  await settled(session, runId, ['failed', 'completed']);
  await writeFile(flag, '');
  const t0 = wallMs();
  await post(session, runId, 'resume');
  const postMs = wallMs() - t0;
  const startedMs = (await startedAt(out)) - t0;
  await settled(session, runId, ['completed', 'failed']);
  return { nodes, postMs, startedMs };
}

async function approveScenario(session: Session, samples: number): Promise<LifecycleResult['approve']> {
  const dir = session.home.home;
  await addWorkflow(session, 'approve-bench', `name: approve-bench
description: a gate, then a node that records when it started
nodes:
  - id: review
    approval: { message: "go?" }
  - id: after
    depends_on: [review]
    bash: 'date +%s%N > "${dir}/after-$WORKFLOW_ID"'
`);
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const { runId } = await startRun(session.server.url, 'approve-bench');
    await settled(session, runId, ['paused']);
    const t0 = wallMs();
    await post(session, runId, 'approve');
    latencies.push((await startedAt(join(dir, `after-${runId}`))) - t0);
    await settled(session, runId, ['completed', 'failed']);
  }
  return { samples, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function rssMiB(session: Session): Promise<number> {
  const status = await readFile(`/proc/${await session.server.pid('supervisor')}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) / 1024;
}

async function memoryScenario(paused: number): Promise<LifecycleResult['memory']> {
  const session = await openSession();
  try {
    await addWorkflow(session, 'park', 'name: park\ndescription: a run that pauses at once\nnodes:\n  - id: review\n    approval: { message: "later" }\n');
    // A warm-up run, so both samples are of a supervisor that has driven a run.
    const warm = await startRun(session.server.url, 'park');
    await settled(session, warm.runId, ['paused']);
    await post(session, warm.runId, 'cancel');
    await settled(session, warm.runId, ['cancelled']);
    const noneMiB = await rssMiB(session);
    const ids: string[] = [];
    for (let i = 0; i < paused; i++) ids.push((await startRun(session.server.url, 'park')).runId);
    for (const id of ids) await settled(session, id, ['paused']);
    const pausedMiB = await rssMiB(session);
    return { paused, noneMiB, pausedMiB };
  } finally {
    await session.close();
  }
}

export async function lifecycle(): Promise<LifecycleResult> {
  const session = await openSession();
  try {
    const resume = await resumeScenario(session, 1000);
    const approve = await approveScenario(session, 20);
    const memory = await memoryScenario(1000);
    return { resume, approve, memory };
  } finally {
    await session.close();
  }
}

export function formatLifecycleTable(r: LifecycleResult): string {
  const f = (n: number, d = 1) => n.toFixed(d);
  return [
    '## Run lifecycle\n',
    '| measure | result |',
    '|---|---:|',
    `| resume of a ${r.resume.nodes}-node run with ${r.resume.nodes - 1} prior successes: POST → answer | ${f(r.resume.postMs)} ms |`,
    `| same: POST → remaining node started | ${f(r.resume.startedMs)} ms |`,
    `| approve → next node started, p50 / p99 (${r.approve.samples} runs) | ${f(r.approve.p50)} / ${f(r.approve.p99)} ms |`,
    `| supervisor RSS: no paused run / ${r.memory.paused} paused runs | ${f(r.memory.noneMiB)} / ${f(r.memory.pausedMiB)} MiB |`,
    '',
  ].join('\n');
}
