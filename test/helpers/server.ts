import { spawn, type ChildProcess } from 'node:child_process';
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

/**
 * Starts the real `cairn serve` (built files) on a free port with the temp home, and waits
 * until the API answers and a supervisor heartbeat is live. Stopped by `home.close()`.
 */
export async function startServer(home: TempHome, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  let log = '';
  const launcher = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CAIRN_HOME: home.home, PORT: String(port), CAIRN_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launcher.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  launcher.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const server: RunningServer = {
    url,
    launcher,
    output: () => log,
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
      if (launcher.exitCode !== null) throw new Error(`cairn serve exited early:\n${log}`);
      const health = await fetch(`${url}/api/health`).then((r) => r.json() as Promise<Record<string, any>>, () => undefined);
      return health?.concurrency?.supervisor?.up === true;
    },
    { what: 'the server and a live supervisor', timeoutMs: 30_000 },
  );
  return server;
}
