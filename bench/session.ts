import { readFile, writeFile } from 'node:fs/promises';
import { startServer, type RunningServer } from '../test/helpers/server.js';
import { openSse, type SseClient } from '../test/helpers/sse.js';
import { makeTempHome, type TempHome } from '../test/helpers/temp-home.js';
import { startRun, writeHomeWorkflow } from '../test/helpers/workflows.js';

/** One real `cairn serve` in its own temp home, for one scenario. */
export interface Session {
  home: TempHome;
  server: RunningServer;
  close(): Promise<void>;
}

/**
 * With `CAIRN_CPU_PROF_DIR=<dir>` in the bench's environment, the server it starts passes it on
 * (src/launcher/launcher.ts): the API, the supervisor and its worker threads each write a V8 CPU
 * profile into `<dir>` when they exit. `npx tsx bench/cpu-profile.ts <dir>` summarises them.
 */
/** `installConfig`: the text of `$CAIRN_HOME/config.yaml`, written before the server starts. */
export async function openSession(env: Record<string, string> = {}, installConfig?: string): Promise<Session> {
  const home = await makeTempHome();
  if (installConfig !== undefined) await writeFile(home.paths.config, installConfig);
  const server = await startServer(home, env);
  return { home, server, close: () => home.close() };
}

export async function addWorkflow(session: Session, name: string, yaml: string): Promise<void> {
  await writeHomeWorkflow(session.home, name, yaml);
}

const isDone = (c: SseClient, runId: string) => () =>
  c.frames.some((f) => f.data.runId === runId && f.data.type === 'workflow_status' && f.data.status !== 'running');

export interface StartedRun {
  runId: string;
  /** From just before the POST to its answer, in ms. */
  postMs: number;
  /** Resolves when the run's final status arrives: wall time from just before the POST, in ms. */
  finished(timeoutMs?: number): Promise<{ ms: number; status: string }>;
}

/** POSTs a run with the run's conversation stream already open, so no status is missed. */
export async function startTimedRun(session: Session, name: string): Promise<StartedRun> {
  const conversationId = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const stream = await openSse(`${session.server.url}/api/stream/${conversationId}`);
  const t0 = performance.now();
  const { runId } = await startRun(session.server.url, name, { conversationId });
  const postMs = performance.now() - t0;
  return {
    runId,
    postMs,
    async finished(timeoutMs = 600_000) {
      try {
        await stream.until(isDone(stream, runId), timeoutMs);
      } finally {
        stream.close();
      }
      const ms = performance.now() - t0;
      const final = stream.frames.find((f) => f.data.runId === runId && f.data.type === 'workflow_status' && f.data.status !== 'running');
      return { ms, status: String(final?.data.status) };
    },
  };
}

/** POSTs a run and resolves when its final status arrives on the run's conversation stream;
 * returns wall time from just before the POST, in ms, and the final status. */
export async function timeRun(session: Session, name: string): Promise<{ ms: number; status: string; runId: string }> {
  const run = await startTimedRun(session, name);
  return { ...(await run.finished()), runId: run.runId };
}

export interface PeakMemory {
  launcher: number;
  api: number;
  supervisor: number;
  total: number;
}

/** Peak resident memory (VmHWM, Linux) of the launcher and its two children, in MiB. The
 * children of the supervisor (node processes, the spawn helper) are not counted. */
export async function peakRssMiB(session: Session): Promise<PeakMemory | undefined> {
  const pids = {
    launcher: session.server.launcher.pid!,
    api: await session.server.pid('api'),
    supervisor: await session.server.pid('supervisor'),
  };
  const peak: Partial<PeakMemory> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
    const kib = status?.match(/VmHWM:\s+(\d+) kB/)?.[1];
    if (!kib) return undefined;
    peak[name as keyof PeakMemory] = Number(kib) / 1024;
  }
  return { ...(peak as PeakMemory), total: peak.launcher! + peak.api! + peak.supervisor! };
}

/** user + system CPU of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Samples the summed proportional set size (Pss, Linux `smaps_rollup`) of the launcher and its
 * two children every `everyMs` and keeps the largest sum. Unlike summed VmHWM peaks, a page the
 * three processes share (the Node binary, libraries) counts once, split between them; the
 * sampling can miss a peak shorter than the interval.
 */
export async function startPssSampler(session: Session, everyMs = 50): Promise<{ stop(): Promise<number | undefined> }> {
  const pids = [session.server.launcher.pid!, await session.server.pid('api'), await session.server.pid('supervisor')];
  let peak: number | undefined;
  let sampling = Promise.resolve();
  const sample = async () => {
    let sumKiB = 0;
    for (const pid of pids) {
      const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => undefined);
      const kib = rollup?.match(/^Pss:\s+(\d+) kB/m)?.[1];
      if (!kib) return;
      sumKiB += Number(kib);
    }
    peak = Math.max(peak ?? 0, sumKiB / 1024);
  };
  const timer = setInterval(() => (sampling = sampling.then(sample)), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await sampling.then(sample);
      return peak;
    },
  };
}
