import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/shared/process-group.js';

/** The one "is this pid alive" check the launcher and the supervisor share. */
describe('isProcessAlive', () => {
  it('is true for a running process and false once it has exited and been reaped', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = child.pid!;
    expect(isProcessAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit'); // node reaps the child before it reports the exit
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('is true for this process', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
  });

  it('is false for ids that name no single process (0 and negatives address process groups)', () => {
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
    expect(isProcessAlive(1.5)).toBe(false);
  });
});
