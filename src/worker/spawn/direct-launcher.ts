import { spawn } from 'node:child_process';
import { workerEnv } from './worker-env.js';
import type { ChildEnd, ChildLauncher, LaunchCommand, LaunchResult, OutputSinks } from './child-launcher.js';

/** Starts children with Node's own spawn: the fallback when no spawn helper can run. */
export const directLauncher: ChildLauncher = {
  kind: 'direct',
  launch(command: LaunchCommand, sinks: OutputSinks): Promise<LaunchResult> {
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: { ...workerEnv(), ...command.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
        exited,
        closed,
        release() {
          child.stdout!.destroy();
          child.stderr!.destroy();
        },
      },
    });
  },
};
