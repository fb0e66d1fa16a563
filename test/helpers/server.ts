import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import type { TempHome } from './temp-home.js';
import { waitFor } from './wait-for.js';

const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

export interface RunningServer {
  url: string;
  launcher: ChildProcess;
  /** Output the launcher and its children wrote, for failure messages. */
  output(): string;
  pid(which: 'api' | 'supervisor'): Promise<number>;
  /** SIGTERM to the launcher; resolves with its exit code once it is gone. */
  stop(): Promise<number | null>;
}

/** The port was free when chosen and taken before the server bound it (another test's server). */
class PortTakenError extends Error {}

/** How the server is started beyond its environment. */
export interface ServerOptions {
  /** The file the server's stdout and stderr go to (appended), as with `cairn serve > file`; else a pipe to the test. */
  logFile?: string;
  /** Start `cairn serve` with this soft open-file limit, and this hard one (lowered: a limit no process may raise). */
  openFiles?: { soft: number; hard?: number };
}

/** The command line of `cairn serve`, under the given open-file limits when asked. */
function serveCommand(opts: ServerOptions): [string, string[]] {
  if (!opts.openFiles) return [process.execPath, [bin, 'serve']];
  const { soft, hard } = opts.openFiles;
  const script = 'ulimit -S -n "$1" && { [ -z "$2" ] || ulimit -H -n "$2"; } && shift 2 && exec "$@"';
  return ['/bin/sh', ['-c', script, 'limits', String(soft), hard === undefined ? '' : String(hard), process.execPath, bin, 'serve']];
}

/**
 * Starts the real `cairn serve` (built files) on a free port with the temp home, and waits
 * until the API answers and a supervisor heartbeat is live: this home's own supervisor, never
 * another test's server that got the port between its choice and the bind (then it starts
 * again on another port). Stopped by `home.close()`.
 */
export async function startServer(home: TempHome, env: Record<string, string> = {}, opts: ServerOptions = {}): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(home, env, opts);
    } catch (err) {
      if (!(err instanceof PortTakenError) || attempt >= 3) throw err;
    }
  }
}

async function startServerOnce(home: TempHome, env: Record<string, string>, opts: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  let piped = '';
  const logFd = opts.logFile === undefined ? undefined : openSync(opts.logFile, 'a');
  const [command, args] = serveCommand(opts);
  const launcher = spawn(command, args, {
    env: { ...process.env, CAIRN_HOME: home.home, PORT: String(port), CAIRN_LOG_LEVEL: 'warn', ...env },
    stdio: logFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
  });
  if (logFd !== undefined) closeSync(logFd);
  launcher.stdout?.on('data', (d: Buffer) => (piped += d.toString()));
  launcher.stderr?.on('data', (d: Buffer) => (piped += d.toString()));
  const readLog = () => (opts.logFile === undefined ? piped : readLogFile(opts.logFile));
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const server: RunningServer = {
    url,
    launcher,
    output: readLog,
    async pid(which) {
      return Number((await readFile(which === 'api' ? home.paths.apiPid : home.paths.supervisorPid, 'utf8')).trim());
    },
    async stop() {
      if (launcher.exitCode !== null || launcher.signalCode !== null) return launcher.exitCode;
      launcher.kill('SIGTERM');
      return exited;
    },
  };
  home.defer(() => server.stop());
  await waitFor(
    async () => {
      const log = readLog();
      if (launcher.exitCode !== null) {
        if (/is already in use/.test(log)) throw new PortTakenError(`port ${port} was taken before the server started`);
        throw new Error(`cairn serve exited early:\n${log}`);
      }
      if (log.includes('EADDRINUSE')) {
        await server.stop();
        throw new PortTakenError(`port ${port} was taken before the server bound it`);
      }
      const health = await fetch(`${url}/api/health`).then((r) => r.json() as Promise<Record<string, any>>, () => undefined);
      const ours = await server.pid('supervisor').catch(() => undefined);
      return health?.concurrency?.supervisor?.up === true && health.concurrency.supervisor.pid === ours;
    },
    { what: 'the server and its own live supervisor', timeoutMs: 30_000 },
  );
  return server;
}

function readLogFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
