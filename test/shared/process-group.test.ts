import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive, killProcessGroup, startedNoLaterThan } from '../../src/shared/process-group.js';

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Spawns `bash -c script` as the leader of its own group; resolves with the first stdout line. */
async function spawnGroup(script: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve(buffered.slice(0, newline));
    });
    child.on('error', reject);
  });
  return { child, line };
}

function isPidLive(pid: number): boolean {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return false;
  try {
    const text = readFileSync(path, 'latin1');
    return !/^[ZX]$/.test(text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

describe('killProcessGroup', () => {
  it('kills a group whose background grandchild ignores SIGTERM, and resolves only once it is gone', async () => {
    // The leader waits on a subshell that ignores SIGTERM and keeps spawning sleeps.
    const { child, line } = await spawnGroup(
      '( trap "" TERM; while true; do sleep 1; done ) & echo $!; wait',
    );
    const grandchild = Number(line);
    const pgid = child.pid!;
    expect(isProcessGroupAlive(pgid)).toBe(true);
    expect(isPidLive(grandchild)).toBe(true);

    await killProcessGroup(pgid, { graceMs: 100 });

    expect(isProcessGroupAlive(pgid)).toBe(false);
    if (process.platform === 'linux') expect(isPidLive(grandchild)).toBe(false);
  });

  it('returns at once when the group is already gone', async () => {
    const { child } = await spawnGroup('echo ready');
    const pgid = child.pid!;
    await new Promise((resolve) => child.on('close', resolve));
    expect(isProcessGroupAlive(pgid)).toBe(false);
    await expect(killProcessGroup(pgid, { graceMs: 60_000 })).resolves.toBeUndefined();
  });

  it('skips the grace period when asked for SIGKILL first', async () => {
    const { child } = await spawnGroup('trap "" TERM; echo ready; while true; do sleep 1; done');
    // A grace period this long would time the test out if SIGKILL waited for it.
    await killProcessGroup(child.pid!, { graceMs: 600_000, signal: 'SIGKILL' });
    expect(isProcessGroupAlive(child.pid!)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('treats a group whose only member is an unreaped zombie as gone', async () => {
    // perl forks a child that leads its own group and exits at once; perl never reaps it.
    const { line } = await spawnGroup(
      'exec perl -e \'$| = 1; my $p = fork; if (!$p) { setpgrp(0, 0); exit 0 } print "$p\\n"; sleep 600\'',
    );
    const zombieGroup = Number(line);
    // Wait until the child has really become a zombie (it exits right after setpgrp).
    for (;;) {
      const text = readFileSync(`/proc/${zombieGroup}/stat`, 'latin1');
      if (text.slice(text.lastIndexOf(')') + 2).startsWith('Z')) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The kernel still reports the group (kill -0 succeeds), but nothing in it can run.
    expect(() => process.kill(-zombieGroup, 0)).not.toThrow();
    expect(isProcessGroupAlive(zombieGroup)).toBe(false);
    await expect(killProcessGroup(zombieGroup, { graceMs: 60_000 })).resolves.toBeUndefined();
  });

  it('refuses to signal group 0 or 1', async () => {
    await expect(killProcessGroup(0, { graceMs: 0 })).rejects.toThrow(/refusing to signal/);
    expect(() => isProcessGroupAlive(1)).toThrow(/refusing to signal/);
  });
});

describe('telling a reused process id from the process that was recorded', () => {
  it('knows a live process started before now, and not before a time in the past', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      expect(startedNoLaterThan(child.pid!, Date.now())).toBe(true);
      // A record from an hour ago cannot be about a process that started just now.
      expect(startedNoLaterThan(child.pid!, Date.now() - 3_600_000)).toBe(process.platform !== 'linux');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('a child killed before it has made its own group', () => {
  it('is killed by pid: a fork that has not called setsid yet must not survive to run its program', async () => {
    // Not detached: the child stays in our group, as a freshly forked node child does until setsid.
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    started.push(child);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise((resolve) => child.once('spawn', resolve));

    await killProcessGroup(child.pid!, { graceMs: 100 });

    expect(await exited).toBe('SIGKILL');
  });
});
