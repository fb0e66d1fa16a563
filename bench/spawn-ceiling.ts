import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * The ceiling a scheduler of child processes can approach on this machine: a plain loop that
 * spawns `true` `total` times, `parallelism` at a time. It runs in a fresh Node process of its
 * own, because fork() gets slower as the forking process grows: measured inside this benchmark
 * process (tsx, test helpers, SSE clients) the loop is slower and would flatter the server.
 */
const loop = `
const { spawn } = require('node:child_process');
const [total, parallelism] = process.argv.slice(1).map(Number);
let started = 0;
const t0 = performance.now();
const lane = async () => {
  while (started < total) {
    started++;
    await new Promise((resolve, reject) => {
      const child = spawn('true', [], { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', resolve);
    });
  }
};
Promise.all(Array.from({ length: parallelism }, lane)).then(() => {
  process.stdout.write(String(total / ((performance.now() - t0) / 1000)));
});
`;

export async function spawnCeiling(total: number, parallelism: number): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', loop, String(total), String(parallelism)]);
  return Number(stdout);
}
