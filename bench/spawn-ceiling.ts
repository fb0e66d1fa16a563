import { spawn } from 'node:child_process';

/** Spawns `command` `total` times from a plain loop, `parallelism` at a time; returns spawns/s.
 * This is the ceiling a scheduler of child processes can approach on this machine. */
export async function spawnCeiling(total: number, parallelism: number, command = 'true'): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (started < total) {
      started++;
      await new Promise<void>((resolve, reject) => {
        const child = spawn(command, [], { stdio: 'ignore' });
        child.once('error', reject);
        child.once('exit', () => resolve());
      });
    }
  };
  await Promise.all(Array.from({ length: parallelism }, lane));
  return total / ((performance.now() - t0) / 1000);
}
