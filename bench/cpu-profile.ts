import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Summarises the V8 CPU profiles a bench run wrote with `CAIRN_BENCH_CPU_PROF=<dir>`:
 * `npx tsx bench/cpu-profile.ts <dir> [top]` prints, per profile (one per process and thread),
 * its sampled time and the functions with the most self time, then the same summed by source
 * file. Idle time (the event loop waiting) is listed apart, so the rest is work.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

function shortUrl(url: string): string {
  const at = url.lastIndexOf('/dist/');
  if (at >= 0) return url.slice(at + 1);
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 1);
  return url || '(native)';
}

function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  return self;
}

async function main(): Promise<void> {
  const [dir, topArg] = process.argv.slice(2);
  if (!dir) throw new Error('usage: tsx bench/cpu-profile.ts <dir> [top]');
  const top = Number(topArg ?? 25);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = selfTimes(profile);
    const byFunction = new Map<string, number>();
    const byFile = new Map<string, number>();
    let idle = 0;
    let total = 0;
    for (const [id, ms] of self) {
      const node = byId.get(id)!;
      const name = node.callFrame.functionName || '(anonymous)';
      total += ms;
      if (IDLE.has(name) && name !== '(garbage collector)') {
        idle += ms;
        continue;
      }
      const key = `${name} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
      const f = shortUrl(node.callFrame.url);
      byFile.set(f, (byFile.get(f) ?? 0) + ms);
    }
    const busy = total - idle;
    if (busy < 50) continue;
    console.log(`\n## ${file}: ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle or in (program)`);
    const rows = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
    console.log('\nself ms | % busy | function');
    for (const [k, ms] of rows(byFunction)) console.log(`${ms.toFixed(1).padStart(7)} | ${((100 * ms) / busy).toFixed(1).padStart(5)} | ${k}`);
    console.log('\nself ms | % busy | file');
    for (const [k, ms] of rows(byFile)) console.log(`${ms.toFixed(1).padStart(7)} | ${((100 * ms) / busy).toFixed(1).padStart(5)} | ${k}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
