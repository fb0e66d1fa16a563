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
const [total, parallelism] = process.argv.slice(1, 3).map(Number);
const command = process.argv.slice(3);
let started = 0;
const t0 = performance.now();
const lane = async () => {
  while (started < total) {
    started++;
    await new Promise((resolve, reject) => {
      const child = spawn(command[0], command.slice(1), { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', resolve);
    });
  }
};
Promise.all(Array.from({ length: parallelism }, lane)).then(() => {
  process.stdout.write(String(total / ((performance.now() - t0) / 1000)));
});
`;

/** Spawns/s of `command` (default `true`); `['bash', '-c', 'true']` is what a node body costs. */
export async function spawnCeiling(total: number, parallelism: number, command: readonly string[] = ['true']): Promise<number> {
  const args = ['-e', loop, String(total), String(parallelism), ...command];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return Number(stdout);
}
