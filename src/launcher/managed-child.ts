import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from '../shared/log.js';
import { createBackoff, defaultBackoff, type BackoffPolicy } from './backoff.js';
import { childReadyMessageSchema, type ChildReadyMessage, type ShutdownMessage } from '../shared/process-messages.js';
import { CliError } from '../terminal/cli-error.js';
import { writePidFile } from './run-dir.js';


export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedChildOptions {
  /** `api` or `supervisor`: used in logs, messages and errors. */
  name: string;
  /** The built entry module to fork. */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Rewritten with the child's pid every time it is started. */
  pidFile: string;
  log: Logger;
  backoff?: BackoffPolicy;
  clock?: () => number;
  /** V8 flags for the child, after the launcher's own `execArgv`. */
  v8Flags?: readonly string[];
  /** Called on every `ready` message: the first, and again after each restart. */
  onReady?: (message: ChildReadyMessage, pid: number) => void;
}

/** `exit code 3` or `signal SIGKILL`, for logs and messages. */
export function describeExit(exit: ChildExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/**
 * One forked child process (API or supervisor) that is restarted with back-off when it dies,
 * until `stop()` is called. A child that dies before it ever reported ready is not restarted:
 * `firstReady` rejects, because a child that cannot start once will not start on retry either.
 */
export class ManagedChild {
  readonly firstReady: Promise<ChildReadyMessage>;
  /** How many times the child has been restarted after dying. */
  restarts = 0;

  readonly #opts: ManagedChildOptions;
  readonly #clock: () => number;
  readonly #backoff: { next(uptimeMs: number): number };
  #child: ChildProcess | undefined;
  #isChildReady = false;
  #wasEverReady = false;
  #isStopping = false;
  #startedAt = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  #exitWaiters: ((exit: ChildExit | undefined) => void)[] = [];
  #settleFirstReady!: { resolve(m: ChildReadyMessage): void; reject(err: Error): void };

  constructor(opts: ManagedChildOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? Date.now;
    this.#backoff = createBackoff(opts.backoff ?? defaultBackoff);
    this.firstReady = new Promise((resolve, reject) => {
      this.#settleFirstReady = { resolve, reject };
    });
    // The launcher may stop before awaiting; an unobserved rejection must not crash it.
    this.firstReady.catch(() => undefined);
  }

  get name(): string {
    return this.#opts.name;
  }

  /** The running child's pid, or undefined between a death and its restart. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): void {
    if (this.#child || this.#isStopping) return;
    this.#spawn();
  }

  /**
   * Stops the child and never restarts it again. A child that is ready gets the `shutdown`
   * message; one that is not ready yet (or whose IPC channel is gone) gets SIGTERM, which the
   * contract says stops it without draining. Calling again (to escalate from drain) resends.
   * Resolves with how the child exited, or undefined when no child was running.
   */
  stop(drain: boolean): Promise<ChildExit | undefined> {
    this.#isStopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    const child = this.#child;
    if (!child) return Promise.resolve(undefined);
    const exited = new Promise<ChildExit | undefined>((resolve) => this.#exitWaiters.push(resolve));
    if (this.#isChildReady && child.connected) {
      const message: ShutdownMessage = { type: 'shutdown', drain };
      child.send(message, (err) => {
        if (!err) return;
        this.#opts.log.warn({ child: this.name, err }, 'launcher.shutdown_send_failed');
        child.kill('SIGTERM');
      });
    } else {
      child.kill('SIGTERM');
    }
    return exited;
  }

  /** SIGKILLs the child's whole process group; returns false when nothing was running. */
  forceKill(): boolean {
    const pid = this.#child?.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      this.#child?.kill('SIGKILL');
    }
    return true;
  }

  #spawn(): void {
    const { name, entry, env, log } = this.#opts;
    // detached: the child gets its own process group, so a Ctrl-C in the terminal reaches only
    // the launcher, which then decides between draining and stopping.
    const child = fork(entry, [], {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
      execArgv: [...process.execArgv, ...(this.#opts.v8Flags ?? [])],
    });
    this.#child = child;
    this.#isChildReady = false;
    this.#startedAt = this.#clock();
    if (child.pid !== undefined) {
      writePidFile(this.#opts.pidFile, child.pid);
      log.info({ child: name, pid: child.pid, restarts: this.restarts }, 'launcher.child_started');
    }
    child.on('message', (raw) => {
      const parsed = childReadyMessageSchema.safeParse(raw);
      if (!parsed.success) {
        // Only `ready` is expected; a malformed one would otherwise leave the launcher waiting.
        if ((raw as { type?: unknown })?.type === 'ready') {
          log.warn({ child: name, issues: parsed.error.issues }, 'launcher.child_message_invalid');
        }
        return;
      }
      if (child.pid === undefined) return;
      this.#isChildReady = true;
      this.#wasEverReady = true;
      log.info({ child: name, pid: child.pid }, 'launcher.child_ready');
      this.#settleFirstReady.resolve(parsed.data);
      this.#opts.onReady?.(parsed.data, child.pid);
    });
    child.on('error', (err) => {
      log.error({ child: name, err }, 'launcher.child_error');
      // A fork that failed outright never emits 'exit'.
      if (child.pid === undefined) this.#onExit(child, { code: null, signal: null });
    });
    child.once('exit', (code, signal) => this.#onExit(child, { code, signal }));
  }

  #onExit(child: ChildProcess, exit: ChildExit): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    this.#isChildReady = false;
    const { name, log } = this.#opts;
    for (const resolve of this.#exitWaiters.splice(0)) resolve(exit);
    if (this.#isStopping) {
      log.info({ child: name, pid: child.pid, ...exit }, 'launcher.child_stopped');
      this.#settleFirstReady.reject(new CliError('LAUNCH_FAILED', `The ${name} process was stopped before it was ready.`));
      return;
    }
    if (!this.#wasEverReady) {
      log.error({ child: name, pid: child.pid, ...exit }, 'launcher.child_start_failed');
      this.#settleFirstReady.reject(
        new CliError('LAUNCH_FAILED', `The ${name} process exited (${describeExit(exit)}) before it was ready; see its output above.`),
      );
      return;
    }
    const uptimeMs = this.#clock() - this.#startedAt;
    const delayMs = this.#backoff.next(uptimeMs);
    this.restarts += 1;
    log.warn({ child: name, pid: child.pid, ...exit, uptimeMs, delayMs, restarts: this.restarts }, 'launcher.child_exited');
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (!this.#isStopping) this.#spawn();
    }, delayMs);
  }
}
