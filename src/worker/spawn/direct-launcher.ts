import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { workerEnv } from './worker-env.js';
import type { ChildEnd, ChildLauncher, LaunchCommand, LaunchResult, OutputSinks } from './child-launcher.js';

/**
 * The gate (see LaunchedChild): `sh` waits for a line on fd 3, a socket only this thread holds,
 * then execs the program; end of file (this thread or its process died) exits 125 instead.
 */
const GATED = 'IFS= read -r _ <&3 || exit 125; exec 3<&-; exec "$0" "$@"';

/** Starts children with Node's own spawn: the fallback when no spawn helper can run. */
export const directLauncher: ChildLauncher = {
  kind: 'direct',
  launch(command: LaunchCommand, sinks: OutputSinks): Promise<LaunchResult> {
    if (!existsSync(command.file)) {
      return Promise.resolve({ ok: false, error: { code: 'ENOENT', message: `spawn ${command.file} ENOENT` } });
    }
    const child = spawn('/bin/sh', ['-c', GATED, command.file, ...command.args], {
      cwd: command.cwd,
      env: { ...workerEnv(), ...command.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    const gate = child.stdio[3] as Writable;
    gate.on('error', () => {}); // a child that died at the gate is reported through 'exit'
    const pid = child.pid;
    if (pid === undefined) {
      return new Promise((resolve) =>
        child.once('error', (err: NodeJS.ErrnoException) =>
          resolve({ ok: false, error: { ...(err.code ? { code: err.code } : {}), message: err.message } }),
        ),
      );
    }
    child.stdout!.on('data', sinks.stdout);
    child.stderr!.on('data', sinks.stderr);
    const exited = new Promise<ChildEnd>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const closed = new Promise<ChildEnd>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    return Promise.resolve({
      ok: true,
      child: {
        pid,
        start() {
          gate.end('go\n');
        },
        exited,
        closed,
        release() {
          gate.destroy();
          child.stdout!.destroy();
          child.stderr!.destroy();
        },
      },
    });
  },
};
