import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_PORT } from '../shared/env-settings.js';
import { CliError } from '../terminal/cli-error.js';

const execFileAsync = promisify(execFile);

/** Ports a server started inside a linked git worktree picks from (the contract's limit). */
export const WORKTREE_PORTS = { first: 3190, last: 4089 } as const;

export type PortReason = 'explicit' | 'worktree' | 'default';

export interface PortChoice {
  port: number;
  reason: PortReason;
  /** The worktree's top-level directory when `reason` is `worktree`. */
  worktree?: string;
}

/** True when nothing listens on `host:port` (checked by binding it for a moment). */
export function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.unref();
    server.once('error', () => done(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(true)));
  });
}

/**
 * The top-level directory of the linked git worktree `cwd` is in, or undefined when `cwd` is in
 * a main checkout, outside any repository, or git is not installed. A linked worktree is one
 * whose git dir (`.git/worktrees/<name>`) differs from the repository's common git dir.
 */
export async function findLinkedWorktree(cwd: string): Promise<string | undefined> {
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync('git', ['rev-parse', '--git-dir', '--git-common-dir', '--show-toplevel'], { cwd }));
  } catch {
    return undefined;
  }
  const [gitDir, commonDir, topLevel] = stdout.split('\n').map((line) => line.trim());
  if (!gitDir || !commonDir || !topLevel) return undefined;
  const [gitDirReal, commonDirReal] = await Promise.all([realpath(resolve(cwd, gitDir)), realpath(resolve(cwd, commonDir))]);
  return gitDirReal === commonDirReal ? undefined : topLevel;
}

/** Where a worktree's port search starts: a hash of its path, so one worktree keeps one port. */
export function preferredWorktreePort(worktree: string): number {
  const size = WORKTREE_PORTS.last - WORKTREE_PORTS.first + 1;
  return WORKTREE_PORTS.first + (createHash('sha256').update(worktree).digest().readUInt32BE(0) % size);
}

export interface ChoosePortOptions {
  /** `PORT` (or `--port`) when the user set one. */
  explicit: number | undefined;
  /** The setting `explicit` came from, named when its port is taken. Default: `PORT`. */
  explicitFrom?: '--port' | 'PORT';
  cwd: string;
  host: string;
  /** Injected in tests that need a port to look taken; defaults to binding it. */
  isFree?: (port: number, host: string) => Promise<boolean>;
}

/**
 * The port `cairn serve` listens on: the explicit one; else, inside a linked worktree, the first
 * free port in 3190–4089 starting from the worktree's own; else 3090. An explicit or default
 * port that is taken is an error naming the port: silently moving would strand clients.
 */
export async function choosePort(opts: ChoosePortOptions): Promise<PortChoice> {
  const isFree = opts.isFree ?? isPortFree;
  if (opts.explicit !== undefined) {
    if (await isFree(opts.explicit, opts.host)) return { port: opts.explicit, reason: 'explicit' };
    const from = opts.explicitFrom ?? 'PORT';
    throw new CliError(
      'PORT_IN_USE',
      `Port ${opts.explicit} (set by ${from}) is already in use on ${opts.host}. ` +
        `Stop whatever listens on it, or choose another port with ${from === '--port' ? '--port <port>' : 'PORT=<port>'}.`,
    );
  }
  const worktree = await findLinkedWorktree(opts.cwd);
  if (worktree !== undefined) {
    const size = WORKTREE_PORTS.last - WORKTREE_PORTS.first + 1;
    const start = preferredWorktreePort(worktree) - WORKTREE_PORTS.first;
    for (let i = 0; i < size; i++) {
      const port = WORKTREE_PORTS.first + ((start + i) % size);
      if (await isFree(port, opts.host)) return { port, reason: 'worktree', worktree };
    }
    throw new CliError(
      'PORT_IN_USE',
      `No free port in ${WORKTREE_PORTS.first}–${WORKTREE_PORTS.last} for the worktree at ${worktree}. ` +
        'Choose one with PORT=<port>.',
    );
  }
  if (await isFree(DEFAULT_PORT, opts.host)) return { port: DEFAULT_PORT, reason: 'default' };
  throw new CliError(
    'PORT_IN_USE',
    `Port ${DEFAULT_PORT} (the default) is already in use on ${opts.host}; is another Cairn server running? ` +
      'Stop it, or choose another port with PORT=<port>.',
  );
}
