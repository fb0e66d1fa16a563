import { statSync } from 'node:fs';
import type { z } from 'zod';
import { killProcessGroup } from '../../../shared/process-group.js';
import type { AttemptResult } from '../../attempt-protocol.js';
import type { execAttemptTaskSchema } from './exec-task.js';
import { cancelledFailure, stopRequestOf } from '../../cancel-reason.js';
import { lostFailure } from '../../lost-attempt.js';
import type { ChildEnd, ChildLauncher, LaunchError } from '../../spawn/child-launcher.js';
import { defaultLauncher } from '../../spawn/default-launcher.js';
import { workerEnv } from '../../spawn/worker-env.js';
import { buildExecCommand } from './exec-command.js';
import { HeadCapture, STDERR_CAP_BYTES, TailCapture, trimTrailingNewline } from './output-capture.js';

/** An exec attempt as the worker sees it, after parsing (defaults applied). */
export type ExecTask = z.output<typeof execAttemptTaskSchema>;

/** What one exec attempt came to; the caller adds timing. */
export type ExecOutcome = Omit<AttemptResult, 'startedAt' | 'durationMs'>;

export interface ExecOptions {
  /** Aborting stops the attempt: its process group is killed and confirmed gone first. */
  signal?: AbortSignal;
  /**
   * Called as soon as the child is forked, while it waits at its gate: the child runs its
   * program only after the returned promise resolves (the attempt's start, with this pid, is
   * recorded). If it rejects, the child is killed without having run, and the error is rethrown.
   */
  onSpawned?: (pid: number) => Promise<void>;
  /** How the child is started; this thread's default launcher unless told. */
  launcher?: ChildLauncher;
  /** Each chunk the child prints, as it comes (after its start is recorded: it runs only then). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

type Ending =
  | { kind: 'closed'; end: ChildEnd }
  | { kind: 'timeout' }
  | { kind: 'aborted'; reason: unknown };

/**
 * Runs one exec attempt: `bash -c` for `sh`, `bun` or `uv run` for scripts, as the leader of its
 * own process group with stdin closed. Never throws for an outcome a user can cause (non-zero
 * exit, timeout, missing runtime, bad cwd); throws only when a group cannot be killed. A child
 * the launcher lost (its spawn helper died; its group is already killed) ends the attempt
 * interrupted, to be run again.
 *
 * When the leader exits on its own, processes it left in the background that closed their
 * stdout are left alone (as upstream: a node may start a daemon); ones that kept stdout open
 * are waited for, under the node's timeout.
 */
export async function runExec(task: ExecTask, opts: ExecOptions = {}): Promise<ExecOutcome> {
  const built = buildExecCommand(task, task.env.PATH ?? workerEnv().PATH);
  if (!built.ok) {
    return configFailure(
      `runtime not found: '${built.executable}' is not installed or not on PATH (needed by node '${task.nodeId}')`,
    );
  }
  if (hasNulByte(task, built.command.args)) {
    return configFailure(`node '${task.nodeId}' cannot run: its script, arguments or environment contain a NUL byte`);
  }
  if (!isDirectory(task.cwd)) {
    return configFailure(`working directory '${task.cwd}' of node '${task.nodeId}' does not exist or is not a directory`);
  }
  const streams = new Streams();
  if (opts.signal?.aborted) return stopped(opts.signal.reason, undefined, null, null, streams);

  const launcher = opts.launcher ?? defaultLauncher();
  const launched = await launcher.launch(
    { file: built.command.file, args: built.command.args, cwd: task.cwd, env: task.env },
    {
      stdout: (chunk) => {
        streams.stdout.push(chunk);
        opts.onOutput?.('stdout', chunk);
      },
      stderr: (chunk) => {
        streams.pushStderr(chunk);
        opts.onOutput?.('stderr', chunk);
      },
    },
  );
  if (!launched.ok && launched.error.unavailable) {
    return { ...configFailure(`node '${task.nodeId}' cannot start: ${launched.error.message}`), failureKind: 'fatal' };
  }
  if (!launched.ok) return configFailure(launchFailureMessage(launched.error, built.command.file, task.cwd));
  const child = launched.child;
  const pid = child.pid;
  try {
    await opts.onSpawned?.(pid);
  } catch (err) {
    await killProcessGroup(pid, { graceMs: 0, signal: 'SIGKILL' });
    child.release();
    throw err;
  }
  child.start();

  let ending: Ending;
  try {
    ending = await waitForEnding(child.closed, task.timeoutMs, opts.signal);
  } catch (err) {
    // The launcher lost track of the child (its helper died): nothing of it may outlive us.
    await killProcessGroup(pid, { graceMs: 0, signal: 'SIGKILL' });
    throw err;
  }
  if (ending.kind === 'closed') {
    const { end } = ending;
    if (end.lost === undefined) return exitOutcome(end.code, end.signal, pid, streams);
    return { status: 'failed', ...lostFailure(task.nodeId, end.lost, task.lostBefore), exitCode: null, signal: null, pid, ...streams.facts() };
  }

  await killProcessGroup(pid, { graceMs: task.killGraceMs });
  // The leader is dead, so its exit comes; a member that escaped the group with setsid could
  // still hold the pipes open, so they are closed rather than waited for.
  const { code, signal } = await child.exited.catch((): ChildEnd => ({ code: null, signal: null }));
  child.release();
  if (ending.kind === 'aborted') return stopped(ending.reason, pid, code, signal, streams);
  const tail = streams.stderrTail.text().trim();
  return {
    status: 'failed',
    error: `timed out after ${task.timeoutMs} ms (the node's timeout); its processes were killed${tail ? `: ${tail}` : ''}`,
    failureKind: 'timeout',
    exitCode: code,
    signal,
    pid,
    ...streams.facts(),
  };
}

/** Resolves with whichever comes first: the child closing, the timeout, or an abort. */
function waitForEnding(closed: Promise<ChildEnd>, timeoutMs: number, signal: AbortSignal | undefined): Promise<Ending> {
  return new Promise<Ending>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    const onAbort = () => finish({ kind: 'aborted', reason: signal!.reason });
    function finish(ending: Ending) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ending);
    }
    closed.then(
      (end) => finish({ kind: 'closed', end }),
      (err: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
  });
}

function exitOutcome(
  code: number | null,
  signal: NodeJS.Signals | null,
  pid: number,
  streams: Streams,
): ExecOutcome {
  const stderrTail = streams.stderrTail.text().trim();
  const base = { exitCode: code, signal, pid, ...streams.facts() };
  if (code === 0) return { status: 'completed', ...base };
  const how = code !== null ? `exit code ${code}` : `killed by signal ${signal}`;
  return {
    status: 'failed',
    error: stderrTail ? `${how}: ${stderrTail}` : how,
    failureKind: 'exec_failed',
    ...base,
  };
}

function stopped(
  reason: unknown,
  pid: number | undefined,
  code: number | null,
  signal: NodeJS.Signals | null,
  streams: Streams,
): ExecOutcome {
  return {
    status: 'cancelled',
    ...streams.facts(),
    ...cancelledFailure(stopRequestOf(reason)),
    exitCode: code,
    signal,
    ...(pid !== undefined ? { pid } : {}),
  };
}

function configFailure(error: string): ExecOutcome {
  return { status: 'failed', output: '', error, failureKind: 'config', retryable: false, exitCode: null, signal: null };
}

function launchFailureMessage(err: LaunchError, file: string, cwd: string): string {
  if (err.code === 'ENOENT') {
    // A missing working directory and a missing executable both come back as ENOENT.
    return `cannot start '${file}': the working directory '${cwd}' does not exist or the executable was removed`;
  }
  return `cannot start '${file}' in '${cwd}': ${err.message}`;
}

/** No argument, path or environment entry of a process can hold a NUL byte. */
function hasNulByte(task: ExecTask, args: readonly string[]): boolean {
  if (task.cwd.includes('\0') || args.some((arg) => arg.includes('\0'))) return true;
  return Object.entries(task.env).some(([key, value]) => key.includes('\0') || value.includes('\0'));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Both streams of the attempt, bounded: the head of stdout (the node's output), the head of
 * stderr (for its logs) and the end of stderr (for the error text of a failure).
 */
class Streams {
  readonly stdout = new HeadCapture();
  readonly stderrHead = new HeadCapture(STDERR_CAP_BYTES);
  readonly stderrTail = new TailCapture();

  pushStderr(chunk: Buffer): void {
    this.stderrHead.push(chunk);
    this.stderrTail.push(chunk);
  }

  /** What every outcome carries of the streams, whatever its status. */
  facts(): Pick<ExecOutcome, 'output' | 'outputTruncated' | 'outputBytes' | 'stderr' | 'stderrTruncated' | 'stderrBytes'> {
    const { stdout, stderrHead } = this;
    return {
      output: trimTrailingNewline(stdout.text()),
      ...(stdout.truncated ? { outputTruncated: true as const, outputBytes: stdout.totalBytes } : {}),
      ...(stderrHead.totalBytes > 0 ? { stderr: stderrHead.text() } : {}),
      ...(stderrHead.truncated ? { stderrTruncated: true as const, stderrBytes: stderrHead.totalBytes } : {}),
    };
  }
}
