import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { openSse } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

const entry = fileURLToPath(new URL('../../src/api/main.ts', import.meta.url));

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/** Forks the API process entry the way the launcher does (with IPC), and waits for `ready`. */
async function startApi(): Promise<{ child: ChildProcess; url: string; port: number; exited: Promise<number | null> }> {
  const port = await freePort();
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CAIRN_HOME: home.home, PORT: String(port), CAIRN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  home.defer(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const ready = await new Promise<{ type: string; port: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { type: string; port: number }));
    child.once('exit', (code) => reject(new Error(`api exited with ${code} before ready`)));
  });
  expect(ready).toEqual({ type: 'ready', port });
  return { child, url: `http://127.0.0.1:${port}`, port, exited };
}

describe('the API process entry', () => {
  it('listens on PORT, reports ready over IPC, and on a shutdown message ends its streams and exits 0', async () => {
    const api = await startApi();
    expect(await (await fetch(`${api.url}/health/db`)).json()).toEqual({ status: 'ok', database: 'connected' });
    const stream = await openSse(`${api.url}/api/stream/__dashboard__`);
    await stream.until((f) => f.length >= 1);

    api.child.send({ type: 'shutdown', drain: false });
    expect(await api.exited).toBe(0);
    await stream.ended;
  });

  it('exits 0 on SIGTERM', async () => {
    const api = await startApi();
    const stream = await openSse(`${api.url}/api/stream/conv-1`);
    await stream.until((f) => f.length >= 1);
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    await stream.ended;
  });
});
