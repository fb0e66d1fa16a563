import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/terminal/cli-error.js';
import { claimServerFile } from '../../src/launcher/run-dir.js';
import { resolveServerAddress } from '../../src/cli/server-address.js';
import { homePaths } from '../../src/shared/paths.js';
import { runCliInProcess } from './cli-harness.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'cairn-address-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** A pid that certainly belongs to no process: one that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('where the CLI finds the server', () => {
  it('prefers --url, then CAIRN_URL, then the running server of CAIRN_HOME, then PORT', () => {
    claimServerFile(homePaths(home), { url: 'http://127.0.0.1:3456', pid: process.pid, startedAt: new Date().toISOString() });
    const env = { CAIRN_HOME: home, CAIRN_URL: 'http://127.0.0.1:5000/', PORT: '4000' };
    expect(resolveServerAddress({ flag: 'http://localhost:6000', env })).toEqual({ url: 'http://localhost:6000', source: 'flag' });
    expect(resolveServerAddress({ env })).toEqual({ url: 'http://127.0.0.1:5000', source: 'env' });
    expect(resolveServerAddress({ env: { CAIRN_HOME: home, PORT: '4000' } })).toEqual({
      url: 'http://127.0.0.1:3456',
      source: 'server-file',
    });
  });

  it('falls back to PORT, then 3090, when no server is running for CAIRN_HOME', () => {
    expect(resolveServerAddress({ env: { CAIRN_HOME: home, PORT: '4000' } })).toEqual({
      url: 'http://127.0.0.1:4000',
      source: 'default',
    });
    expect(resolveServerAddress({ env: { CAIRN_HOME: home } }).url).toBe('http://127.0.0.1:3090');
  });

  it('ignores a server.json left behind by a launcher that is gone', () => {
    claimServerFile(homePaths(home), { url: 'http://127.0.0.1:3456', pid: deadPid(), startedAt: new Date().toISOString() });
    expect(resolveServerAddress({ env: { CAIRN_HOME: home } }).url).toBe('http://127.0.0.1:3090');
  });

  it('refuses an address that is not an http URL, naming where it came from', () => {
    expect(() => resolveServerAddress({ flag: 'localhost:3090', env: {} })).toThrow(CliError);
    expect(() => resolveServerAddress({ env: { CAIRN_URL: 'ftp://x' } })).toThrow(/CAIRN_URL 'ftp:\/\/x' must start with http/);
  });
});

describe('when nothing answers', () => {
  it('says which address it tried and how to start the server', async () => {
    // Port 9 (discard) has no listener on a development machine; the connection is refused.
    const result = await runCliInProcess(['run', 'list'], { env: { CAIRN_HOME: home, PORT: '9' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot reach the Cairn server at http://127.0.0.1:9');
    expect(result.stderr).toContain('cairn serve');
    expect(result.stderr).toContain('npm start');
  });

  it('points at --url when that is where the address came from', async () => {
    const result = await runCliInProcess(['run', 'get', '0a1b2c3d-0000-4000-8000-000000000000', '--url', 'http://127.0.0.1:9'], { env: { CAIRN_HOME: home } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Check the --url argument');
  });
});

describe('the client side of the server address', () => {
  it('`PORT=abc cairn run list` quotes the PORT value given, not a URL the CLI made of it', async () => {
    assertBuilt();
    const res = await runCli(['run', 'list'], { env: userCliEnv(home, { PORT: 'abc' }), cwd: home });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("PORT 'abc'");
    expect(res.stderr).not.toContain('http://127.0.0.1:abc');
  });
});

describe('an address that answers but is not a Cairn server', () => {
  let other: Server;
  let url: string;
  beforeAll(async () => {
    other = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE HTML>\n<html><body><h1>Error response</h1><p>Error code: 404</p></body></html>\n');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => other.close(resolve));
  });

  it('`cairn run list --url <it>` names the address and says to check it, instead of printing its HTML', async () => {
    assertBuilt();
    const res = await runCli(['run', 'list', '--url', url], { env: userCliEnv(home), cwd: home });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(url);
    expect(res.stderr).toMatch(/--url|CAIRN_URL/);
    expect(res.stderr).not.toContain('<!DOCTYPE');
  });
});
