import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPidFile, readServerFile } from '../../src/launcher/run-dir.js';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { assertBuilt } from '../cli/cli-process.js';
import { freePort } from '../helpers/free-port.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The real `npm start`, stopped the ways npm gets stopped. The package is a temp directory whose
 * package.json has this checkout's `start` script verbatim, and whose bin, dist and node_modules
 * link to the checkout's; only its `build` script is a no-op, so the tests never rewrite dist/
 * under other test files that are reading it.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
let pkg: string;
let home: TempHome;
const started: { npm: ChildProcess; pids: number[] }[] = [];

beforeAll(() => {
  assertBuilt();
  pkg = mkdtempSync(join(tmpdir(), 'cairn-npm-start-'));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  manifest.scripts = { start: manifest.scripts.start!, build: 'node -e ""' };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const entry of ['bin', 'dist', 'node_modules', 'workflows', 'commands']) symlinkSync(join(root, entry), join(pkg, entry));
});
afterAll(() => rmSync(pkg, { recursive: true, force: true }));
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  // After a failure, nothing this file started may outlive it: npm's group, then any orphan.
  for (const { npm, pids } of started.splice(0)) {
    if (npm.exitCode === null && npm.signalCode === null) process.kill(-npm.pid!, 'SIGKILL');
    for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await home.close();
});

interface NpmServer {
  npm: ChildProcess;
  exited: Promise<void>;
  url: string;
  port: number;
  /** Launcher, API and supervisor. */
  pids: number[];
  output(): string;
}

/** `npm start [-- args]` in its own process group (as in a terminal), once the server is ready. */
async function npmStart(args: string[] = []): Promise<NpmServer> {
  const port = await freePort();
  let log = '';
  const npm = spawn('npm', ['start', ...(args.length ? ['--', ...args] : [])], {
    cwd: pkg,
    env: { ...process.env, CAIRN_HOME: home.home, PORT: String(port), CAIRN_LOG_LEVEL: 'info', npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const entry = { npm, pids: [] as number[] };
  started.push(entry);
  npm.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  npm.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${log}`);
      const health = await fetch(`${url}/api/health`).then((r) => r.json() as Promise<Record<string, any>>, () => undefined);
      return health?.concurrency?.supervisor?.up === true;
    },
    { what: `npm start to serve on ${url}`, timeoutMs: 60_000 },
  );
  const pids = [readServerFile(home.paths)!.pid, readPidFile(home.paths.apiPid)!, readPidFile(home.paths.supervisorPid)!];
  entry.pids.push(...pids);
  return { npm, exited, url, port, pids, output: () => log };
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function expectEverythingStopped(server: NpmServer): Promise<void> {
  await server.exited;
  await waitFor(() => server.pids.every((pid) => !isProcessAlive(pid)), {
    what: `launcher, API and supervisor (${server.pids.join(', ')}) to exit\n${server.output()}`,
    timeoutMs: 30_000,
  });
  expect(await isPortFree(server.port)).toBe(true);
  expect(existsSync(home.paths.serverFile)).toBe(false);
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('stops the launcher, API and supervisor on %s to npm alone', async (signal) => {
    const server = await npmStart();
    process.kill(server.npm.pid!, signal);
    await expectEverythingStopped(server);
  });

  it('with --drain, one Ctrl-C in the terminal drains: the running node finishes', async () => {
    const gate = join(home.home, 'gate');
    await writeHomeWorkflow(
      home,
      'gated',
      `name: gated\ndescription: waits for the test\nnodes:\n  - id: work\n    bash: "while [ ! -f '${gate}' ]; do sleep 0.05; done; echo finished"\n`,
    );
    const server = await npmStart(['--drain']);
    const { runId } = await startRun(server.url, 'gated');
    const store = home.openStore();
    await waitFor(async () => (await store.listRunEvents(runId)).some((e) => e.event_type === 'node_started'), {
      what: 'the node to start',
    });
    // A terminal's Ctrl-C goes to the whole foreground group, and npm forwards its own copy.
    process.kill(-server.npm.pid!, 'SIGINT');
    await waitFor(() => server.output().includes('supervisor.shutdown_started'), { what: 'the supervisor to start draining' });
    await writeFile(gate, '');
    await expectEverythingStopped(server);
    const events = await store.listRunEvents(runId);
    expect(events.find((e) => e.event_type === 'node_completed')?.data.node_output).toBe('finished');
    expect(server.output()).not.toContain('launcher.drain_interrupted');
  });
});
