import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import type { TempHome } from './temp-home.js';
import { waitFor } from './wait-for.js';

const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

/** One `cairn serve --role api|supervisor` launcher, started by a test. */
export interface RoleProcess {
  launcher: ChildProcess;
  /** The API's address (`--role api` only). */
  url: string | undefined;
  output(): string;
  /** The pid in the home's `supervisor.pid` (rewritten when the launcher restarts the supervisor). */
  supervisorPid(): Promise<number>;
  /** SIGTERM to the launcher; resolves with its exit code once it is gone. */
  stop(): Promise<number | null>;
}

/**
 * Starts the real `cairn serve --role <role>` (built files) with the temp home and `env`, and
 * waits until it is ready: the API answers `/api/health`, or the supervisor printed its line.
 * Stopped by `home.close()`.
 */
export async function startRole(
  home: TempHome,
  role: 'api' | 'supervisor',
  env: Record<string, string>,
  opts: { wrap?: (file: string, args: readonly string[]) => [string, string[]] } = {},
): Promise<RoleProcess> {
  const port = role === 'api' ? await freePort() : undefined;
  let out = '';
  // `wrap`: run it elsewhere, e.g. on a test host (net-hosts.ts); the wrapper execs the launcher.
  const [file, args] = (opts.wrap ?? ((f, a) => [f, [...a]]))(process.execPath, [bin, 'serve', '--role', role]);
  const launcher = spawn(file, args, {
    env: {
      ...process.env, CAIRN_HOME: home.home, CAIRN_LOG_LEVEL: 'warn', ...(port ? { PORT: String(port) } : { PORT: '' }), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launcher.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  launcher.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  const url = port ? `http://127.0.0.1:${port}` : undefined;
  const proc: RoleProcess = {
    launcher,
    url,
    output: () => out,
    async supervisorPid() {
      return Number((await readFile(home.paths.supervisorPid, 'utf8')).trim());
    },
    async stop() {
      if (launcher.exitCode !== null || launcher.signalCode !== null) return launcher.exitCode;
      launcher.kill('SIGTERM');
      return exited;
    },
  };
  home.defer(() => proc.stop());
  await waitFor(
    async () => {
      if (launcher.exitCode !== null) throw new Error(`cairn serve --role ${role} exited early:\n${out}`);
      if (role === 'supervisor') return out.includes('Cairn supervisor is running');
      return (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) && out.includes('Cairn is listening');
    },
    { what: `cairn serve --role ${role} to be ready`, timeoutMs: 30_000 },
  );
  return proc;
}
