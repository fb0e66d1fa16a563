import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/free-port.js';
import { percentile } from './session.js';

/**
 * What starting Cairn costs: `cairn serve` from spawn until the API answers and the supervisor's
 * heartbeat is live, in wall time and in CPU summed over the launcher, the API and the
 * supervisor (with their threads), read from /proc at that moment; and a light CLI command,
 * start to exit. `CAIRN_BENCH_BIN` measures another checkout's `bin/cairn.js` (to compare builds).
 */
const bin = process.env.CAIRN_BENCH_BIN ?? fileURLToPath(new URL('../bin/cairn.js', import.meta.url));
const TICKS_PER_SECOND = 100;

/** CPU seconds a live process has used so far (all its threads): utime + stime from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

interface Start {
  wallMs: number;
  cpuS: number;
}

async function startOnce(): Promise<Start> {
  const home = await mkdtemp(join(tmpdir(), 'cairn-bench-start-'));
  const port = await freePort();
  const t0 = performance.now();
  const launcher = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CAIRN_HOME: home, PORT: String(port), CAIRN_LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const health = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.json() as Promise<{ concurrency?: { supervisor?: { up?: boolean; pid?: number } } }>, () => undefined);
      const supervisor = health?.concurrency?.supervisor;
      if (supervisor?.up && supervisor.pid) {
        const wallMs = performance.now() - t0;
        const apiPid = Number(readFileSync(join(home, 'run', 'api.pid'), 'utf8'));
        const cpuS = cpuSeconds(launcher.pid!) + cpuSeconds(apiPid) + cpuSeconds(supervisor.pid);
        return { wallMs, cpuS };
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    const exited = new Promise((r) => launcher.once('exit', r));
    launcher.kill('SIGTERM');
    await exited;
    await rm(home, { recursive: true, force: true });
  }
}

/** `cairn <argv>` start to exit: wall time, and CPU read from the shell that waited for it. */
function cliOnce(argv: string[]): Start {
  const script = `"$@" > /dev/null; read -r stat < /proc/$$/stat; echo "$stat"`;
  const t0 = performance.now();
  const out = spawnSync('/bin/sh', ['-c', script, 'sh', process.execPath, bin, ...argv], { encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  const fields = out.stdout.slice(out.stdout.lastIndexOf(')') + 2).trim().split(' ');
  // cutime + cstime: the CPU of the children the shell waited for.
  return { wallMs, cpuS: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND };
}

export interface ServerStartResult {
  serve: Start[];
  help: Start[];
}

export async function serverStart(samples = 10): Promise<ServerStartResult> {
  await startOnce(); // a first start warms the file cache
  const serve: Start[] = [];
  for (let i = 0; i < samples; i++) serve.push(await startOnce());
  const help: Start[] = [];
  for (let i = 0; i < samples; i++) help.push(cliOnce(['--help']));
  return { serve, help };
}

export function formatServerStartTable(r: ServerStartResult): string {
  const row = (what: string, s: Start[]) => {
    const wall = s.map((x) => x.wallMs);
    const cpu = s.map((x) => x.cpuS * 1000);
    return `| ${what} (${s.length} samples) | ${percentile(wall, 50).toFixed(0)} / ${Math.max(...wall).toFixed(0)} ms | ${percentile(cpu, 50).toFixed(0)} / ${Math.max(...cpu).toFixed(0)} ms |`;
  };
  return [
    '## Server start (`npm run bench -- start`)\n',
    '| measure | wall p50 / max | CPU p50 / max |',
    '|---|---:|---:|',
    row('`cairn serve`: spawn → API answers, supervisor live', r.serve),
    row('`cairn --help`: spawn → exit', r.help),
    '',
  ].join('\n');
}
