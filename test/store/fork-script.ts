import { fork } from 'node:child_process';

export interface ScriptProcess {
  /** Resolves with the next message of `type`; rejects if the process exits first. */
  next(type: string): Promise<Record<string, unknown>>;
  send(message: Record<string, unknown>): void;
  /** SIGKILLs the process if it is still running (for cleanup). */
  kill(): void;
}

/**
 * Starts a TypeScript script in a separate Node process (through tsx) with an IPC channel.
 * Messages are `{ type, ... }` objects; every message is kept, so one sent before `next` is
 * called is not lost.
 */
export function forkScript(script: string, args: readonly string[]): ScriptProcess {
  const child = fork(script, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let exited: string | undefined;
  child.on('message', (message: Record<string, unknown>) => {
    inbox.push(message);
    for (const wake of waiters) wake();
  });
  child.once('exit', (code, signal) => {
    exited = `exited (${code ?? signal})`;
    for (const wake of waiters) wake();
  });
  return {
    next(type) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const index = inbox.findIndex((m) => m.type === type);
          if (index >= 0) {
            waiters.delete(check);
            resolve(inbox.splice(index, 1)[0]!);
          } else if (exited) {
            waiters.delete(check);
            reject(new Error(`${script} ${exited} before sending '${type}'`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    send(message) {
      child.send(message);
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
