import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { z } from 'zod';
import { killProcessGroup } from '../../shared/process-group.js';
import type { AttemptResult, execAttemptTaskSchema } from '../../shared/schemas/attempt.js';
import { cancelledFailure, cancelReasonOf } from '../cancel-reason.js';
import { buildExecCommand } from './exec-command.js';
import { HeadCapture, TailCapture, trimTrailingNewline } from './output-capture.js';

/** An exec attempt as the worker sees it, after parsing (defaults applied). */
export type ExecTask = z.output<typeof execAttemptTaskSchema>;

/** What one exec attempt came to; the caller adds timing and whether it was recorded. */
export type ExecOutcome = Omit<AttemptResult, 'startedAt' | 'durationMs' | 'recorded'>;

export interface ExecOptions {
  /** Aborting stops the attempt: its process group is killed and confirmed gone first. */
  signal?: AbortSignal;
  /** Called synchronously right after the spawn, before anything is awaited. */
  onSpawned?: (pid: number) => void;
}

type Ending =
  | { kind: 'closed'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timeout' }
  | { kind: 'aborted'; reason: unknown };

/**
 * Runs one exec attempt: `bash -c` for `sh`, `bun` or `uv run` for scripts, as the leader of its
 * own process group with stdin closed. Never throws for an outcome a user can cause (non-zero
 * exit, timeout, missing runtime, bad cwd); throws only when a group cannot be killed.
 *
 * When the leader exits on its own, processes it left in the background that closed their
 * stdout are left alone (as upstream: a node may start a daemon); ones that kept stdout open
 * are waited for, under the node's timeout.
 */
export async function runExec(task: ExecTask, opts: ExecOptions = {}): Promise<ExecOutcome> {
  const env = { ...process.env, ...task.env };
  const built = buildExecCommand(task, env.PATH);
  if (!built.ok) {
    return configFailure(
      `runtime not found: '${built.executable}' is not installed or not on PATH (needed by node '${task.nodeId}')`,
    );
  }
  if (opts.signal?.aborted) return stopped(opts.signal.reason, undefined, null, null, '');

  const child = spawn(built.command.file, built.command.args, {
    cwd: task.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) {
    const [err] = (await once(child, 'error')) as [NodeJS.ErrnoException];
    return configFailure(spawnFailureMessage(err, built.command.file, task.cwd));
  }
  opts.onSpawned?.(pid);

  const stdout = new HeadCapture();
  const stderr = new TailCapture();
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  const ending = await waitForEnding(child, task.timeoutMs, opts.signal);
  if (ending.kind === 'closed') {
    return exitOutcome(ending.code, ending.signal, pid, stdout, stderr.text().trim());
  }

  await killProcessGroup(pid, { graceMs: task.killGraceMs });
  // The leader is dead, so 'exit' comes; a member that escaped the group with setsid could
  // still hold the pipes open, so they are closed rather than waited for.
  const [code, signal] = await exited;
  child.stdout!.destroy();
  child.stderr!.destroy();
  const output = trimTrailingNewline(stdout.text());
  if (ending.kind === 'aborted') return stopped(ending.reason, pid, code, signal, output);
  const tail = stderr.text().trim();
  return {
    status: 'failed',
    output,
    error: `timed out after ${task.timeoutMs} ms (the node's timeout); its processes were killed${tail ? `: ${tail}` : ''}`,
    failureKind: 'timeout',
    exitCode: code,
    signal,
    pid,
    ...truncation(stdout),
  };
}

/** Resolves with whichever comes first: the child closing, the timeout, or an abort. */
function waitForEnding(
  child: ReturnType<typeof spawn>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Ending> {
  return new Promise<Ending>((resolve) => {
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    const onAbort = () => finish({ kind: 'aborted', reason: signal!.reason });
    const onClose = (code: number | null, sig: NodeJS.Signals | null) =>
      finish({ kind: 'closed', code, signal: sig });
    function finish(ending: Ending) {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      child.off('close', onClose);
      resolve(ending);
    }
    child.once('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
  });
}

function exitOutcome(
  code: number | null,
  signal: NodeJS.Signals | null,
  pid: number,
  stdout: HeadCapture,
  stderrTail: string,
): ExecOutcome {
  const output = trimTrailingNewline(stdout.text());
  const base = { output, exitCode: code, signal, pid, ...truncation(stdout) };
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
  output: string,
): ExecOutcome {
  return {
    status: 'cancelled',
    output,
    ...cancelledFailure(cancelReasonOf(reason)),
    exitCode: code,
    signal,
    ...(pid !== undefined ? { pid } : {}),
  };
}

function configFailure(error: string): ExecOutcome {
  return { status: 'failed', output: '', error, failureKind: 'config', retryable: false, exitCode: null, signal: null };
}

function spawnFailureMessage(err: NodeJS.ErrnoException, file: string, cwd: string): string {
  if (err.code === 'ENOENT') {
    // spawn reports a missing working directory as ENOENT too; name the likelier culprit.
    return `cannot start '${file}': the working directory '${cwd}' does not exist or the executable was removed`;
  }
  return `cannot start '${file}' in '${cwd}': ${err.message}`;
}

function truncation(stdout: HeadCapture): Partial<ExecOutcome> {
  return stdout.truncated ? { outputTruncated: true, outputBytes: stdout.totalBytes } : {};
}
