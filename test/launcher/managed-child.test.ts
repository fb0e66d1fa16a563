import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/terminal/cli-error.js';
import { ManagedChild } from '../../src/launcher/managed-child.js';
import { readPidFile } from '../../src/launcher/run-dir.js';
import { waitFor } from '../helpers/wait-for.js';
import { allGone, capturingLogger, ipcChild, readFixtureLog } from './launcher-harness.js';

let dir: string;
const children: ManagedChild[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-child-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.forceKill();
    await child.stop(false);
  }
  await rm(dir, { recursive: true, force: true });
});

function managed(mode: string) {
  const { log, lines } = capturingLogger();
  const pidFile = join(dir, 'child.pid');
  const fixtureLog = join(dir, 'fixture.jsonl');
  const child = new ManagedChild({
    name: 'api',
    entry: ipcChild,
    env: { ...process.env, FIXTURE_MODE: mode, FIXTURE_LOG: fixtureLog },
    pidFile,
    log,
    backoff: { initialMs: 1, maxMs: 1, resetAfterMs: 60_000 },
  });
  children.push(child);
  return { child, lines, pidFile, fixtureLog };
}

describe('a managed child process', () => {
  it('is restarted after kill -9, with its pid file rewritten and the exit logged', async () => {
    const { child, lines, pidFile } = managed('normal');
    child.start();
    await child.firstReady;
    const first = child.pid!;
    expect(readPidFile(pidFile)).toBe(first);

    process.kill(first, 'SIGKILL');
    const second = await waitFor(() => (child.restarts === 1 && child.pid !== first ? child.pid : undefined), { what: 'restart' });
    await waitFor(() => lines.filter((l) => l.msg === 'launcher.child_ready').length === 2, { what: 'ready again' });
    expect(readPidFile(pidFile)).toBe(second);
    expect(lines.find((l) => l.msg === 'launcher.child_exited')).toMatchObject({ child: 'api', pid: first, signal: 'SIGKILL' });
  });

  it('is not restarted when it dies before it was ever ready, and says how it exited', async () => {
    const { child } = managed('crash-before-ready');
    child.start();
    const err = await child.firstReady.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toContain('The api process exited (exit code 3) before it was ready');
    expect(child.restarts).toBe(0);
    expect(child.pid).toBeUndefined();
  });

  it('is asked to shut down over IPC with the drain flag, and is not restarted after', async () => {
    const { child, fixtureLog } = managed('normal');
    child.start();
    await child.firstReady;
    const pid = child.pid!;
    expect(await child.stop(true)).toEqual({ code: 0, signal: null });
    expect(readFixtureLog(fixtureLog).filter((e) => e.event === 'message')).toEqual([
      { pid, event: 'message', message: { type: 'shutdown', drain: true } },
    ]);
    expect(child.pid).toBeUndefined();
    expect(child.restarts).toBe(0);
    expect(allGone([pid])).toBe(true);
  });

  it('can be killed outright when it ignores shutdown', async () => {
    const { child } = managed('ignore-shutdown');
    child.start();
    await child.firstReady;
    const pid = child.pid!;
    const exited = child.stop(false);
    expect(child.forceKill()).toBe(true);
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(allGone([pid])).toBe(true);
  });
});
