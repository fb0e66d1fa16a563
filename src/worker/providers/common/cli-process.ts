import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { killProcessGroup } from '../../../shared/process-group.js';
import type { ChildEnd, ChildLauncher } from '../../spawn/child-launcher.js';
import { findExecutable } from '../../spawn/find-executable.js';
import { LineQueue } from './line-queue.js';
import type { AdapterContext } from '../provider-adapter.js';

/**
 * What every CLI adapter does with its process, in one place: find the executable, start it as
 * the leader of its own process group with the prompt on stdin from a file (never on the command
 * line, never shell text), hand the group to the caller before it runs, read its stdout line by
 * line, and kill the whole group on abort (SIGTERM, then SIGKILL after a grace).
 */

/** Grace between SIGTERM and SIGKILL for a CLI's group. */
export const KILL_GRACE_MS = 2_000;

/** Runs `"$@"` with stdin from the file named by $CAIRN_PROMPT_FILE; the prompt is never shell text. */
const STDIN_WRAPPER = 'exec "$@" < "$CAIRN_PROMPT_FILE"';

export type ExecutableLookup = { ok: true; file: string } | { ok: false; error: string };

/** How one CLI is found: its configured path, its npm package's entry, its name on PATH. */
export interface ExecutableSpec {
  /** The contract's text for an executable that is not where the configuration says. */
  notFound: string;
  /** The environment variable and config key that name the path (for the error). */
  envVar: string;
  configKey: string;
  /** The command looked up on PATH. */
  command: string;
  /** Module specifiers of the npm package's entry (`@openai/codex/bin/codex.js`), tried in order. */
  packageEntry?: string | readonly string[];
  /** Its npm package's name (for the error). */
  packageName?: string;
}

/**
 * The npm package's entry, when it is installed next to Cairn: resolved as a module, else looked
 * up as a file in the same node_modules folders (a package whose `exports` hide its bin).
 */
export function packageBin(specifier: string): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(specifier);
  } catch {
    for (const dir of require.resolve.paths(specifier) ?? []) {
      const file = join(dir, specifier);
      if (existsSync(file)) return file;
    }
    return undefined;
  }
}

/** Where the CLI is: the configured path (env, then config), the package's bin, or the command on PATH. */
export function resolveCliExecutable(spec: ExecutableSpec, binaryPath: string | undefined, pathEnv: string | undefined): ExecutableLookup {
  if (binaryPath !== undefined) {
    const file = findExecutable(binaryPath, pathEnv);
    return file ? { ok: true, file } : { ok: false, error: `${spec.notFound}: '${binaryPath}' does not exist (set ${spec.envVar} or ${spec.configKey})` };
  }
  const entries = spec.packageEntry === undefined ? [] : typeof spec.packageEntry === 'string' ? [spec.packageEntry] : spec.packageEntry;
  const file = entries.map(packageBin).find((f) => f !== undefined) ?? findExecutable(spec.command, pathEnv);
  if (file) return { ok: true, file };
  const pkg = spec.packageName !== undefined ? `, ${spec.packageName} is not installed` : '';
  return { ok: false, error: `${spec.notFound}: ${spec.envVar} and ${spec.configKey} are not set${pkg} and '${spec.command}' is not on PATH` };
}

/** The argv that runs `file`: a `.js` entry (an npm package's bin) runs under this Node. */
export function commandFor(file: string): string[] {
  return /\.[cm]?js$/.test(file) ? [process.execPath, file] : [file];
}

/** A started CLI: its stdout lines, its end, and how to stop it. */
export interface CliProcess {
  pid: number;
  lines: AsyncIterable<string>;
  /** Kills the whole group (once) and stops reading it. */
  stop(): Promise<void>;
  readonly stopped: boolean;
  /** The leader's exit (never rejects). */
  exited(): Promise<ChildEnd | { code: null; signal: null }>;
  /** Everything the CLI wrote on stderr so far. */
  stderr(): string;
  /** Detaches from the abort signal and lets the child go (if it was not stopped). */
  finish(): void;
}

export interface CliLaunch {
  launcher: ChildLauncher;
  ctx: AdapterContext;
  /** The argv (the executable first), run with stdin from `promptFile`. */
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  promptFile: string;
  /** `$0` of the wrapper shell (`cairn-codex`), for `ps`. */
  name: string;
}

/**
 * Starts the CLI and lets it run once `ctx.onSpawned` has the group; a failed `onSpawned` kills
 * it before it ran anything and rethrows. An aborted `ctx.signal` stops it.
 */
export async function launchCli(opts: CliLaunch): Promise<{ ok: true; proc: CliProcess } | { ok: false; error: string }> {
  const lines = new LineQueue();
  const stderr: Buffer[] = [];
  const env = { ...opts.env, CAIRN_PROMPT_FILE: opts.promptFile };
  const launched = await opts.launcher.launch(
    { file: '/bin/sh', args: ['-c', STDIN_WRAPPER, opts.name, ...opts.args], cwd: opts.cwd, env },
    { stdout: (c) => lines.push(c), stderr: (c) => stderr.push(c) },
  );
  if (!launched.ok) return { ok: false, error: launched.error.message };
  const child = launched.child;
  try {
    await opts.ctx.onSpawned?.(child.pid);
  } catch (err) {
    await killProcessGroup(child.pid, { graceMs: 0, signal: 'SIGKILL' });
    child.release();
    throw err;
  }
  child.start();
  void child.closed.then(
    (end) => {
      if (end.lost !== undefined) opts.ctx.onLost?.(end.lost);
      lines.end();
    },
    () => lines.end(),
  );
  // Every caller waits for the one kill: an adapter that stops its CLI after a watchdog already
  // began to must not end the attempt while a member of the group is still exiting.
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await killProcessGroup(child.pid, { graceMs: KILL_GRACE_MS });
      child.release();
      lines.end();
    })());
  const onAbort = () => void stop();
  opts.ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (opts.ctx.signal.aborted) onAbort();
  return {
    ok: true,
    proc: {
      pid: child.pid,
      lines,
      stop,
      get stopped() {
        return stopping !== undefined;
      },
      exited: () => child.exited.catch(() => ({ code: null, signal: null })),
      stderr: () => Buffer.concat(stderr).toString('utf8'),
      finish: () => {
        opts.ctx.signal.removeEventListener('abort', onAbort);
        if (stopping === undefined) child.release();
      },
    },
  };
}
