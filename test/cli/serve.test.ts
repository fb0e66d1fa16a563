import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPidFile, readServerFile, serverFilePath } from '../../src/launcher/run-dir.js';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { freePort } from '../helpers/free-port.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const answers = async (url: string) => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true;

describe('cairn serve, as a real process', () => {
  it('writes the pid files and server.json, and restarts the API process after kill -9', async () => {
    const server = await startServer(home);
    const apiPid = await server.pid('api');
    const supervisorPid = await server.pid('supervisor');
    expect(isProcessAlive(apiPid) && isProcessAlive(supervisorPid)).toBe(true);
    expect(readServerFile(home.paths)).toMatchObject({ url: server.url, pid: server.launcher.pid });

    process.kill(apiPid, 'SIGKILL');
    const restarted = await waitFor(
      () => {
        const pid = readPidFile(home.paths.apiPid);
        return pid !== undefined && pid !== apiPid && isProcessAlive(pid) ? pid : undefined;
      },
      { what: 'a new API process' },
    );
    await waitFor(() => answers(server.url), { what: '/health to answer again' });
    expect(readPidFile(home.paths.apiPid)).toBe(restarted);
    expect(readPidFile(home.paths.supervisorPid)).toBe(supervisorPid);
  });

  it('on SIGTERM stops itself and both processes within 10 s and removes the run files', async () => {
    const server = await startServer(home);
    const pids = [server.launcher.pid!, await server.pid('api'), await server.pid('supervisor')];
    // The pid can be reaped a moment before Node reports the exit: wait for the report itself.
    const exitCode = new Promise<number | null>((resolve) => server.launcher.once('exit', (code) => resolve(code)));
    server.launcher.kill('SIGTERM');
    await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), { what: 'every process to exit', timeoutMs: 10_000 });
    expect(await exitCode).toBe(0);
    expect([home.paths.apiPid, home.paths.supervisorPid, serverFilePath(home.paths)].filter((p) => existsSync(p))).toEqual([]);
  });

  it('after kill -9 of the launcher, its processes stop and a new server can start on the same home', async () => {
    const first = await startServer(home);
    const pids = [await first.pid('api'), await first.pid('supervisor')];
    first.launcher.kill('SIGKILL');
    await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), { what: 'the orphaned processes to stop' });
    expect(existsSync(serverFilePath(home.paths))).toBe(true);

    const second = await startServer(home);
    expect(readServerFile(home.paths)).toMatchObject({ url: second.url, pid: second.launcher.pid });
    expect(await answers(second.url)).toBe(true);
  });

  it('refuses a second server on the same CAIRN_HOME and says how to stop the first', async () => {
    const server = await startServer(home);
    const second = await runCli(['serve'], {
      env: { ...process.env, CAIRN_HOME: home.home, PORT: String(await freePort()) },
      cwd: home.home,
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`already running at ${server.url} (pid ${server.launcher.pid})`);
    expect(second.stderr).toContain(`kill ${server.launcher.pid}`);
    expect(await answers(server.url)).toBe(true);
    expect(readServerFile(home.paths)?.pid).toBe(server.launcher.pid);
  });

  it('refuses an explicit port that is taken, naming it', async () => {
    const server = await startServer(home);
    const other = await makeTempHome();
    try {
      const port = new URL(server.url).port;
      const result = await runCli(['serve'], { env: { ...process.env, CAIRN_HOME: other.home, PORT: port }, cwd: other.home });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Port ${port} (set by PORT) is already in use`);
    } finally {
      await other.close();
    }
  });
});

describe('cairn serve with a bad port', () => {
  const cli = (argv: string[], extra: NodeJS.ProcessEnv = {}) => runCli(argv, { env: userCliEnv(home.home, extra), cwd: home.home });

  it('`cairn serve --port 99999` is a usage error naming --port, not an unexpected RangeError', async () => {
    const res = await cli(['serve', '--port', '99999']);
    expect(res.stderr).not.toMatch(/unexpected error|RangeError|ERR_SOCKET_BAD_PORT/);
    expect(res.stderr).toMatch(/--port/);
    expect(res.code).toBe(2);
  });

  it('`PORT=99999 cairn serve` names PORT and its range, without a stack trace', async () => {
    const res = await cli(['serve'], { PORT: '99999', CAIRN_LOG_LEVEL: 'warn' });
    expect(res.stderr).not.toMatch(/unexpected error|RangeError|ERR_SOCKET_BAD_PORT/);
    expect(res.stderr).toMatch(/PORT/);
    expect(res.code).not.toBe(0);
  });

  it('`DATABASE_URL=mysql://…` is a usage error saying what DATABASE_URL must look like, never quoting its password', async () => {
    const res = await cli(['serve'], { DATABASE_URL: 'mysql://me:hunter2@db.internal/cairn', CAIRN_LOG_LEVEL: 'warn' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/cairn');
    expect(res.stderr).not.toContain('hunter2');
  });

  describe('a port given with --port that is taken', () => {
    let blocker: Server;
    let port: number;
    beforeEach(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      port = (blocker.address() as { port: number }).port;
    });
    afterEach(async () => {
      await new Promise((resolve) => blocker.close(resolve));
    });

    it('is refused naming --port, the setting the user gave, not PORT', async () => {
      const res = await cli(['serve', '--port', String(port)], { CAIRN_LOG_LEVEL: 'warn' });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`Port ${port}`);
      expect(res.stderr).not.toContain('(set by PORT)');
      expect(res.stderr).toMatch(/--port/);
    });
  });
});
