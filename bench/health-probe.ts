import { spawn } from 'node:child_process';
import { percentile } from './session.js';

/**
 * A probe of the API's responsiveness: `GET /health` every ~20 ms from a fresh Node process of
 * its own, so the bench process's own work (SSE parsing, YAML generation) does not show up as
 * server latency. `/health` does no I/O, so its latency is the time the request waited for the
 * API process: for its event loop, or for a CPU on a busy machine. The largest sample bounds the
 * longest block of that loop (within the probe's 20 ms period, plus one loopback round trip).
 */
const program = `
const url = process.argv[1];
const periodMs = Number(process.argv[2]);
const samples = [];
let stopped = false;
process.stdin.on('end', () => { stopped = true; });
process.stdin.resume();
(async () => {
  let next = performance.now();
  while (!stopped) {
    const t0 = performance.now();
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      samples.push([performance.timeOrigin + t0, performance.now() - t0]);
    } catch {
      samples.push([performance.timeOrigin + t0, -1]);
    }
    next = Math.max(next + periodMs, performance.now());
    await new Promise((r) => setTimeout(r, next - performance.now()));
  }
  process.stdout.write(JSON.stringify(samples));
})();
`;

/** Wall-clock milliseconds, comparable with the probe's (another process, same clock). */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** One request: when it was sent (wall-clock ms) and how long it took (-1: it failed). */
export type HealthSample = [at: number, ms: number];

export interface HealthLatency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests that failed (connection refused, reset): should be 0. */
  failures: number;
}

export interface HealthProbe {
  /** Stops polling and returns every sample since the start. */
  stop(): Promise<HealthSample[]>;
}

/** Starts polling `${baseUrl}/health` every `periodMs`. */
export function startHealthProbe(baseUrl: string, periodMs = 20): HealthProbe {
  const child = spawn(process.execPath, ['-e', program, `${baseUrl}/health`, String(periodMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let result: Promise<HealthSample[]> | undefined;
  const stop = async (): Promise<HealthSample[]> => {
    child.stdin!.end();
    await exited;
    return JSON.parse(out) as HealthSample[];
  };
  return { stop: () => (result ??= stop()) };
}

/** Latency figures of the samples in flight during any of `windows` ([from, to] wall-clock ms),
 * or of all samples. */
export function summarizeHealth(samples: readonly HealthSample[], windows?: readonly [number, number][]): HealthLatency {
  const overlaps = ([at, ms]: HealthSample) => !windows || windows.some(([from, to]) => at <= to && at + Math.max(ms, 0) >= from);
  const chosen = samples.filter(overlaps);
  const ok = chosen.map(([, ms]) => ms).filter((ms) => ms >= 0);
  if (ok.length === 0) throw new Error('the health probe got no answer in the window');
  return {
    samples: ok.length,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    max: Math.max(...ok),
    failures: chosen.length - ok.length,
  };
}
