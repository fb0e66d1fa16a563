/**
 * How an exec attempt's child process is started. Two ways behind one interface: through a
 * small long-lived spawn helper (the default when `perl` is available) or with Node's own
 * `child_process.spawn` (the fallback).
 *
 * Why a helper: fork() copies the page tables of the whole forking process, so its cost grows
 * with the process's memory, and each child pays again to unmap the copy at exec. The supervisor
 * process holds the pool's worker threads, SQLite and the record schemas (120-140 MB resident);
 * 1000 `bash -c true` attempts at a concurrency of 8 spawned from it ran at 410-440/s, against
 * 900-1000/s for a plain Node loop spawning `true` with piped stdio (2-core reference machine).
 * Through the helper the same attempts run at 700-840/s. For scale: even a plain loop spawning
 * `bash -c true` manages only about 830/s there, since bash costs more to start than `true`.
 */

export interface LaunchCommand {
  file: string;
  args: readonly string[];
  cwd: string;
  /** Set for the child on top of the worker's environment (`workerEnv()`). */
  env: Readonly<Record<string, string>>;
}

/** Where a child's output goes, chunk by chunk, as it arrives. */
export interface OutputSinks {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
}

export interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /**
   * Set when the launcher lost the child instead of seeing it end (its spawn helper died): the
   * child's process group was killed and confirmed gone before this end was given. Says what
   * happened, for the attempt's record; `code` and `signal` are then null.
   */
  lost?: string;
}

/**
 * A forked child: the leader of its own process group (its pid is the group id), stdin closed.
 * It waits at a gate and runs its program only once `start()` is called, so the caller can
 * record the pid first; if the caller's side goes away before that, the child exits (125)
 * without running anything.
 */
export interface LaunchedChild {
  pid: number;
  /** Lets the child exec its program. */
  start(): void;
  /** The leader has exited. */
  exited: Promise<ChildEnd>;
  /** The leader has exited and every holder of its stdout and stderr has closed them. */
  closed: Promise<ChildEnd>;
  /** Stops reading the child's output (after its group was killed, an escaped holder may keep it open). */
  release(): void;
}

/** Why a child could not be started; `code` is the errno name (ENOENT, EACCES ...) when known. */
export interface LaunchError {
  code?: string;
  message: string;
  /** The launcher cannot start any child for now (its spawn helper keeps dying); `message` says what to do. */
  unavailable?: true;
}

export type LaunchResult = { ok: true; child: LaunchedChild } | { ok: false; error: LaunchError };

export interface ChildLauncher {
  readonly kind: 'helper' | 'direct';
  launch(command: LaunchCommand, sinks: OutputSinks): Promise<LaunchResult>;
}
