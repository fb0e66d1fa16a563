import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/terminal/cli-error.js';
import { launch, type Launcher, type LauncherOptions } from '../../src/launcher/launcher.js';
import { claimServerFile, readPidFile, readServerFile, serverFilePath } from '../../src/launcher/run-dir.js';
import { homePaths, type HomePaths } from '../../src/shared/paths.js';
import { waitFor } from '../helpers/wait-for.js';
import { allGone, capturingLogger, freePort, ipcChild, readFixtureLog } from './launcher-harness.js';

let home: string;
let paths: HomePaths;
let fixtureLog: string;
const launched: Launcher[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'cairn-launch-'));
  paths = homePaths(home);
  fixtureLog = join(home, 'fixture.jsonl');
});
afterEach(async () => {
  for (const launcher of launched.splice(0)) {
    launcher.stop();
    launcher.stop();
    await launcher.done;
  }
  await rm(home, { recursive: true, force: true });
});

async function start(mode: string, overrides: Partial<LauncherOptions> = {}) {
  const { log, lines } = capturingLogger();
  let out = '';
  const port = await freePort();
  const launcher = launch({
    drain: false,
    env: { ...process.env, CAIRN_HOME: home, FIXTURE_MODE: mode, FIXTURE_LOG: fixtureLog, PORT: undefined },
    cwd: home,
    port,
    out: { write: (chunk: string) => (out += chunk) },
    log,
    entries: { api: ipcChild, supervisor: ipcChild },
    ...overrides,
  });
  launched.push(launcher);
  return { launcher, lines, port, output: () => out };
}

function childPids(): number[] {
  return [...new Set(readFixtureLog(fixtureLog).filter((e) => e.event === 'started').map((e) => e.pid))];
}

describe('cairn serve (launcher)', () => {
  it('starts both processes with PORT and CAIRN_HOME, writes the run files and says where it listens', async () => {
    const { launcher, port, output } = await start('normal');
    const info = await launcher.ready;
    expect(info.url).toBe(`http://127.0.0.1:${port}`);
    expect(readServerFile(paths)).toMatchObject({ url: info.url, pid: process.pid });
    expect(readPidFile(paths.apiPid)).toBe(info.apiPid);
    expect(readPidFile(paths.supervisorPid)).toBe(info.supervisorPid);
    const started = readFixtureLog(fixtureLog).filter((e) => e.event === 'started');
    expect(started.map((e) => [e.port, e.home])).toEqual([
      [String(port), home],
      [String(port), home],
    ]);
    expect(output()).toBe(`Cairn is listening on ${info.url} (home ${home}). Press Ctrl-C to stop.\n`);
  });

  it('stops both processes and removes the run files on stop, exiting 0', async () => {
    const { launcher } = await start('normal');
    await launcher.ready;
    const pids = childPids();
    launcher.stop();
    expect(await launcher.done).toBe(0);
    expect(allGone(pids)).toBe(true);
    expect([paths.apiPid, paths.supervisorPid, serverFilePath(paths)].some((p) => existsSync(p))).toBe(false);
    const shutdowns = readFixtureLog(fixtureLog).filter((e) => e.event === 'message');
    expect(shutdowns.map((e) => e.message)).toEqual([
      { type: 'shutdown', drain: false },
      { type: 'shutdown', drain: false },
    ]);
  });

  it('kills what does not stop by the deadline and exits non-zero', async () => {
    const { launcher, lines } = await start('ignore-shutdown', { shutdownDeadlineMs: 200 });
    await launcher.ready;
    const pids = childPids();
    launcher.stop();
    expect(await launcher.done).toBe(1);
    expect(allGone(pids)).toBe(true);
    expect(lines.find((l) => l.msg === 'launcher.shutdown_forced')).toMatchObject({ children: ['api', 'supervisor'] });
    expect(existsSync(serverFilePath(paths))).toBe(false);
  });

  it('with --drain waits for the processes to finish, and a second stop forces them', async () => {
    const { launcher } = await start('drain-until-forced', { drain: true });
    await launcher.ready;
    const pids = childPids();
    launcher.stop();
    const drainRequests = () =>
      readFixtureLog(fixtureLog).filter((e) => e.event === 'message' && e.message?.drain === true).length === 2;
    await waitFor(drainRequests, { what: 'both children asked to drain' });
    expect(allGone(pids)).toBe(false);
    expect(existsSync(serverFilePath(paths))).toBe(true);
    launcher.stop();
    expect(await launcher.done).toBe(0);
    expect(allGone(pids)).toBe(true);
    const forced = readFixtureLog(fixtureLog).filter((e) => e.event === 'message' && e.message?.drain === false);
    expect(forced).toHaveLength(2);
  });

  it('with --drain takes two signals in quick succession as a forced stop', async () => {
    const { launcher } = await start('drain-until-forced', { drain: true });
    await launcher.ready;
    const pids = childPids();
    launcher.stop();
    launcher.stop();
    expect(await launcher.done).toBe(0);
    expect(allGone(pids)).toBe(true);
  });

  it('refuses to start while another live server holds CAIRN_HOME, and leaves its files alone', async () => {
    const holder = { url: 'http://127.0.0.1:3999', pid: process.ppid, startedAt: new Date().toISOString() };
    claimServerFile(paths, holder);
    const { launcher } = await start('normal');
    const err = await launcher.ready.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe('SERVER_ALREADY_RUNNING');
    expect((err as CliError).message).toContain(`already running at http://127.0.0.1:3999 (pid ${process.ppid})`);
    expect((err as CliError).message).toContain(`kill ${process.ppid}`);
    expect(await launcher.done).toBe(1);
    expect(readServerFile(paths)).toEqual(holder);
    expect(childPids()).toEqual([]);
  });

  it('fails to start, stopping the other process and cleaning up, when a process dies before it is ready', async () => {
    const { launcher } = await start('crash-before-ready');
    const err = await launcher.ready.catch((e: unknown) => e);
    expect((err as CliError).code).toBe('LAUNCH_FAILED');
    expect((err as CliError).message).toContain('exited (exit code 3) before it was ready');
    expect(await launcher.done).toBe(1);
    expect(existsSync(serverFilePath(paths))).toBe(false);
  });
});
