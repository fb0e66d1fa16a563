import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packagePath } from '../shared/package-root.js';
import { CliError } from '../terminal/cli-error.js';
import { findServerTree, isAlive, type ServerTree } from './process-tree.js';
import type { StressClient } from './stress-client.js';

/**
 * The `cairn serve` that `cairn stress` starts on its scratch home: a child process it can kill
 * and start again on the same home and port, with its output in `<home>/stress-server.log`.
 */

/** This package's `bin/cairn.js`. */
const bin = packagePath('bin', 'cairn.js');
const READY_WITHIN_MS = 45_000;
const POLL_MS = 50;
/** `cairn serve` is down within 10 s of a SIGTERM; past this it is SIGKILLed. */
const STOP_WITHIN_MS = 20_000;

export interface OwnServer {
  readonly url: string;
  readonly home: string;
  readonly logPath: string;
  /** The launcher's tree now (pids read from /proc). */
  tree(): ServerTree;
  /** Starts `cairn serve` again after its launcher died; resolves once it is ready. */
  restart(client: StressClient): Promise<void>;
  /** Waits until the API answers and the live supervisor is this launcher's (not `oldSupervisor`). */
  waitReady(client: StressClient, opts?: { notApi?: number; notSupervisor?: number }): Promise<void>;
  /** SIGTERM to the launcher; resolves with its exit code (null when it had to be SIGKILLed). */
  stop(): Promise<number | null>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port that is free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** The environment of the server: the user's, less what would point it elsewhere or tie it to npm. */
function serverEnv(base: NodeJS.ProcessEnv, home: string, port: number, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('CAIRN_') || key.startsWith('npm_') || key === 'PORT' || key === 'HOST') continue;
    env[key] = value;
  }
  return { ...env, CAIRN_HOME: home, PORT: String(port), CAIRN_LOG_LEVEL: 'warn', ...extra };
}

/** Starts `cairn serve` on `home` and a free port and waits until it is ready. */
export async function startOwnServer(opts: { home: string; env: NodeJS.ProcessEnv; extraEnv: Record<string, string>; client: (url: string) => StressClient }): Promise<{ server: OwnServer; client: StressClient }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logPath = join(opts.home, 'stress-server.log');
  const env = serverEnv(opts.env, opts.home, port, opts.extraEnv);
  let launcher: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);

  const spawnLauncher = () => {
    const log = openSync(logPath, 'a');
    try {
      launcher = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    const child = launcher;
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  };
  const isRunning = () => launcher !== undefined && launcher.exitCode === null && launcher.signalCode === null;

  const server: OwnServer = {
    url,
    home: opts.home,
    logPath,
    tree: () => findServerTree(launcher?.pid ?? -1),
    async waitReady(client, wait = {}) {
      const deadline = Date.now() + READY_WITHIN_MS;
      for (;;) {
        if (!isRunning()) throw new CliError('LAUNCH_FAILED', `cairn serve exited (code ${launcher?.exitCode}). Its output: ${logPath}`);
        const tree = server.tree();
        const fresh = tree.api !== undefined && tree.supervisor !== undefined && tree.api !== wait.notApi && tree.supervisor !== wait.notSupervisor;
        if (fresh) {
          const health = await client.health().catch(() => undefined);
          if (health?.concurrency.supervisor.up && health.concurrency.supervisor.pid === tree.supervisor) return;
        }
        if (Date.now() > deadline) throw new CliError('LAUNCH_FAILED', `The server at ${url} was not ready within ${READY_WITHIN_MS / 1000} s. Its output: ${logPath}`);
        await sleep(POLL_MS);
      }
    },
    async restart(client) {
      // The old API may still hold the port for a moment after its launcher died: start again.
      const deadline = Date.now() + READY_WITHIN_MS;
      for (;;) {
        const logStart = readFileSync(logPath).length;
        spawnLauncher();
        try {
          await server.waitReady(client);
          return;
        } catch (err) {
          const tail = readFileSync(logPath).subarray(logStart).toString('utf8');
          if (Date.now() > deadline || !/already in use|EADDRINUSE|already running/.test(tail)) throw err;
          await sleep(250);
        }
      }
    },
    async stop() {
      if (!isRunning()) return launcher?.exitCode ?? null;
      launcher!.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WITHIN_MS)));
      const code = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (code !== 'late') return code;
      launcher!.kill('SIGKILL');
      await exited;
      return null;
    },
  };
  const client = opts.client(url);
  spawnLauncher();
  try {
    await server.waitReady(client);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { server, client };
}

/** Waits until none of `pids` is alive, for at most `withinMs`; returns those still alive. */
export async function waitGone(pids: readonly number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await sleep(POLL_MS);
  }
}
