import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/terminal/cli-error.js';
import { WORKTREE_PORTS, choosePort, findLinkedWorktree, preferredWorktreePort } from '../../src/launcher/port-choice.js';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd });

let dir: string;
let main: string;
let worktree: string;
const servers: Server[] = [];

/** Occupies a port on 127.0.0.1 for the rest of the test. */
async function occupy(port = 0): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, resolve);
  });
  return (server.address() as { port: number }).port;
}

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'cairn-port-')));
  main = join(dir, 'repo');
  worktree = join(dir, 'feature-tree');
  await mkdir(main);
  await git(main, 'init', '-q', '-b', 'main');
  await git(main, 'commit', '-q', '--allow-empty', '-m', 'first');
  await git(main, 'worktree', 'add', '-q', '-b', 'feature', worktree);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

describe('linked worktree detection', () => {
  it('finds the worktree root from the worktree and from a folder inside it', async () => {
    expect(await findLinkedWorktree(worktree)).toBe(worktree);
    await mkdir(join(worktree, 'src', 'deep'), { recursive: true });
    expect(await findLinkedWorktree(join(worktree, 'src', 'deep'))).toBe(worktree);
  });

  it('does not count the main checkout or a folder outside git as a worktree', async () => {
    expect(await findLinkedWorktree(main)).toBeUndefined();
    expect(await findLinkedWorktree(dir)).toBeUndefined();
  });
});

describe('choosing the port', () => {
  const host = '127.0.0.1';

  it('uses PORT when it is free, even inside a worktree', async () => {
    const port = await occupy();
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect(await choosePort({ explicit: port, cwd: worktree, host })).toEqual({ port, reason: 'explicit' });
  });

  it('fails naming the port when PORT is taken', async () => {
    const port = await occupy();
    const err = await choosePort({ explicit: port, cwd: main, host }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe('PORT_IN_USE');
    expect((err as CliError).message).toContain(`Port ${port} (set by PORT) is already in use`);
  });

  it('uses 3090 outside a worktree', async () => {
    expect(await choosePort({ explicit: undefined, cwd: main, host, isFree: async () => true })).toEqual({
      port: 3090,
      reason: 'default',
    });
  });

  it('fails naming 3090 when the default port is taken outside a worktree', async () => {
    const err = await choosePort({ explicit: undefined, cwd: main, host, isFree: async () => false }).catch((e: unknown) => e);
    expect((err as CliError).message).toContain('Port 3090 (the default) is already in use');
  });

  it('picks the same port in 3190-4089 for a worktree every time', async () => {
    const first = await choosePort({ explicit: undefined, cwd: worktree, host });
    const again = await choosePort({ explicit: undefined, cwd: join(worktree, '.'), host });
    expect(first.reason).toBe('worktree');
    expect(first.worktree).toBe(worktree);
    expect(first.port).toBeGreaterThanOrEqual(WORKTREE_PORTS.first);
    expect(first.port).toBeLessThanOrEqual(WORKTREE_PORTS.last);
    expect(again.port).toBe(first.port);
  });

  it("moves on to another free port in the range when the worktree's own port is taken", async () => {
    const preferred = preferredWorktreePort(worktree);
    await occupy(preferred);
    const choice = await choosePort({ explicit: undefined, cwd: worktree, host });
    expect(choice.port).not.toBe(preferred);
    expect(choice.port).toBeGreaterThanOrEqual(WORKTREE_PORTS.first);
    expect(choice.port).toBeLessThanOrEqual(WORKTREE_PORTS.last);
  });

  it("does not give a second worktree the port a first worktree's server holds", async () => {
    const second = join(dir, 'other-tree');
    await git(main, 'worktree', 'add', '-q', '-b', 'other', second);
    const first = await choosePort({ explicit: undefined, cwd: worktree, host });
    await occupy(first.port);
    const other = await choosePort({ explicit: undefined, cwd: second, host });
    expect(other.reason).toBe('worktree');
    expect(other.port).not.toBe(first.port);
  });
});
