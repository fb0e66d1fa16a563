import { rmSync } from 'node:fs';
import { loadAddressSettings } from '../shared/env-settings.js';
import { builtPath } from '../shared/package-root.js';
import { ALLOWED_HOSTS_CONFIG_KEY, ALLOWED_HOSTS_ENV, listensBeyondLoopback } from '../shared/host-names.js';
import type { Logger } from '../shared/log.js';
import type { HomePaths } from '../shared/paths.js';
import type { BackoffPolicy } from './backoff.js';
import { CliError } from '../terminal/cli-error.js';
import { writeLine, type OutputStream } from '../terminal/context.js';
import { childEnv } from './child-env.js';
import { ManagedChild } from './managed-child.js';
import { choosePort } from './port-choice.js';
import { claimServerFile, removeRunFiles, serverFilePath } from './run-dir.js';
import { stopChildren, type ChildrenStop } from './stop-children.js';

/** Everything is down this long after a stop without drain; whatever is left is SIGKILLed. */
export const SHUTDOWN_DEADLINE_MS = 9_000;

/**
 * V8 flags of the two children:
 * - API: `--max-semi-space-size=1` (the young generation otherwise grows to 16 MB semi-spaces
 *   during bursts of event JSON and keeps the pages; its peak RSS dropped by about a third) and
 *   `--optimize-for-size` (a slower-growing old generation; ~10 MB off its peaks). Neither changed
 *   fan-out throughput measurably.
 * - Supervisor: `--max-semi-space-size=1` and `--heap-growing-percent=50`. `--optimize-for-size`
 *   (kept until 2026-11-23) cost half its CPU: 1000 prompts at limit 32 took 1.37-1.42 ms of
 *   supervisor CPU per node with it and 0.6-0.7 without, in the steady state (bench/ai-nodes.ts).
 *   What it was kept for is its slow heap growth: without it 1000 paused runs held +16-19 MiB
 *   (target <= 20 above none; +27 with 8 MB semi-spaces), since V8 lets the old generation grow
 *   4x between full collections on a machine this size and keeps the pages. A growth factor of
 *   1.5 instead holds +9 MiB; 1.1 and 1.3 held no less and cost 0.1-0.2 ms more CPU per node
 *   (more full collections), 2.0 held +14 (bench/lifecycle.ts).
 * Not `--lite-mode` (no optimising compiler): it took ~17 MB off the API's peak, but made the
 * API's catalog thread parse and check a 10,000-node workflow 3.5 times slower (the first POST of
 * one went from ~240 ms to ~370 ms); summed Pss stays under 200 MB without it (BENCHMARKS.md).
 */
const childV8Flags = {
  api: ['--max-semi-space-size=1', '--optimize-for-size'],
  supervisor: ['--max-semi-space-size=1', '--heap-growing-percent=50'],
} as const;

/**
 * With `CAIRN_CPU_PROF_DIR` set, the API and supervisor (and the supervisor's worker threads, which
 * inherit its flags) each write a V8 CPU profile there when they exit: how the bench finds where
 * time goes (bench/cpu-profile.ts). Node refuses `--cpu-prof` in NODE_OPTIONS, hence this.
 */
export function profilingFlags(env: NodeJS.ProcessEnv): string[] {
  const dir = env.CAIRN_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** The built entries of the two processes in `dist/`. */
export const defaultEntries = {
  api: builtPath('api/main.js'),
  supervisor: builtPath('supervisor/process/main.js'),
};

/**
 * Which processes a launcher starts (`cairn serve --role`): both (one machine), the API only, or
 * a supervisor only (one more host working on a shared PostgreSQL database).
 */
export type ServeRole = 'all' | 'api' | 'supervisor';
export const serveRoles: readonly ServeRole[] = ['all', 'api', 'supervisor'];

export interface LauncherOptions {
  /** The processes to start; `all` unless told. */
  role?: ServeRole;
  /** Let the supervisor finish in-flight nodes on stop (`cairn serve --drain`). */
  drain: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `--port`; otherwise `PORT`, otherwise chosen (see port-choice.ts). */
  port?: number | undefined;
  /** Where the one human "listening on" line goes. */
  out: OutputStream;
  log: Logger;
  entries?: { api: string; supervisor: string };
  shutdownDeadlineMs?: number;
  backoff?: BackoffPolicy;
  /** The bundled executables added to the children's PATH (default: the package's node_modules/.bin). */
  binDir?: string;
}

export interface ServerInfo {
  role: ServeRole;
  /** Where the API listens; undefined for a supervisor-only launcher, which listens nowhere. */
  url: string | undefined;
  port: number | undefined;
  home: string;
  apiPid: number | undefined;
  supervisorPid: number | undefined;
}

export interface Launcher {
  /** Resolves once both processes reported ready; rejects when the server could not start. */
  readonly ready: Promise<ServerInfo>;
  /** The first call stops gracefully (draining with `drain`); a second forces the deadline path. */
  stop(): void;
  /** Resolves with the exit code once every child is down and the run files are removed. */
  readonly done: Promise<number>;
}

/** A browsable address for a listen host: a wildcard bind is reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The warning for a server that listens beyond loopback: anyone who reaches the port can run
 * commands, because Cairn has no authentication. Logged and printed on the console at start.
 */
export function beyondLoopbackWarning(host: string, port: number): string {
  return (
    `WARNING: Cairn listens on ${host || '(every address)'} port ${port}, beyond this machine's loopback, and has no authentication: ` +
    'anyone who can reach that port can start runs, which run commands as you. ' +
    'Keep HOST=127.0.0.1 (the default), or put a reverse proxy that authenticates in front of it (or a firewall around it) ' +
    `and list the names it is reached by in ${ALLOWED_HOSTS_ENV} (or ${ALLOWED_HOSTS_CONFIG_KEY} in $CAIRN_HOME/config.yaml).`
  );
}

/**
 * Starts the server: chooses the port, claims `$CAIRN_HOME/run/server.json`, forks the API and
 * supervisor processes (or only the one its role names) and keeps them running until `stop()`.
 */
export function launch(opts: LauncherOptions): Launcher {
  const log = opts.log;
  const deadlineMs = opts.shutdownDeadlineMs ?? SHUTDOWN_DEADLINE_MS;
  const entries = opts.entries ?? defaultEntries;
  let children: ManagedChild[] = [];
  let stopCalls = 0;
  let ownsRunFiles = false;
  let paths: HomePaths | undefined;
  let wake: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => {
    wake = resolve;
  });

  const role = opts.role ?? 'all';
  const start = async (): Promise<ServerInfo> => {
    const settings = loadAddressSettings(opts.env);
    paths = settings.paths;
    const listener = role === 'supervisor' ? undefined : await claimListener(settings);
    const env = childEnv(opts.env, { port: listener?.port, home: settings.home, binDir: opts.binDir });
    const common = { env, log, backoff: opts.backoff };
    const api = role === 'supervisor'
      ? undefined
      : new ManagedChild({ ...common, name: 'api', entry: entries.api, pidFile: settings.paths.apiPid, v8Flags: [...childV8Flags.api, ...profilingFlags(opts.env)] });
    const supervisor = role === 'api'
      ? undefined
      : new ManagedChild({
        ...common,
        name: 'supervisor',
        entry: entries.supervisor,
        pidFile: settings.paths.supervisorPid,
        v8Flags: [...childV8Flags.supervisor, ...profilingFlags(opts.env)],
      });
    children = [api, supervisor].filter((child): child is ManagedChild => child !== undefined);
    if (stopCalls > 0) throw new CliError('LAUNCH_FAILED', 'Stopped before the server was ready.');
    for (const child of children) child.start();
    const stopped = stopRequested.then(() => {
      throw new CliError('LAUNCH_FAILED', 'Stopped before the server was ready.');
    });
    stopped.catch(() => undefined);
    await Promise.race([Promise.all(children.map((child) => child.firstReady)), stopped]);
    const info = { role, url: listener?.url, port: listener?.port, home: settings.home, apiPid: api?.pid, supervisorPid: supervisor?.pid };
    log.info(info, 'launcher.ready');
    if (!listener) {
      writeLine(opts.out, `Cairn supervisor is running (pid ${supervisor?.pid ?? '?'}, home ${settings.home}): it works on the runs in DATABASE_URL. Press Ctrl-C to stop.`);
      return info;
    }
    const only = role === 'api' ? ' (API only: supervisors on other hosts run the work)' : '';
    writeLine(opts.out, `Cairn is listening on ${listener.url}${only} (home ${settings.home}). Press Ctrl-C to stop.`);
    if (listensBeyondLoopback(settings.host)) {
      const warning = beyondLoopbackWarning(settings.host, listener.port);
      log.warn({ host: settings.host, port: listener.port, advice: warning }, 'launcher.listening_beyond_loopback');
      writeLine(opts.out, warning);
    }
    return info;
  };

  /** Chooses the API's port and claims `$CAIRN_HOME/run/server.json` for it. */
  const claimListener = async (settings: ReturnType<typeof loadAddressSettings>): Promise<{ url: string; port: number }> => {
    const choice = await choosePort({
      explicit: opts.port ?? settings.port,
      explicitFrom: opts.port !== undefined ? '--port' : 'PORT',
      cwd: opts.cwd,
      host: settings.host,
    });
    const url = `http://${urlHost(settings.host)}:${choice.port}`;
    const claim = claimServerFile(settings.paths, { url, pid: process.pid, startedAt: new Date().toISOString() });
    if (!claim.claimed) {
      throw new CliError(
        'SERVER_ALREADY_RUNNING',
        `A Cairn server for ${settings.home} is already running at ${claim.holder.url} (pid ${claim.holder.pid}). ` +
          `Stop it with Ctrl-C in its terminal or \`kill ${claim.holder.pid}\`, or use another CAIRN_HOME. ` +
          `If that pid is not Cairn, remove ${serverFilePath(settings.paths)}.`,
      );
    }
    ownsRunFiles = true;
    log.info({ port: choice.port, reason: choice.reason, worktree: choice.worktree, home: settings.home }, 'launcher.port_chosen');
    return { url, port: choice.port };
  };

  let stopping: ChildrenStop | undefined;
  const shutdown = async (startFailed: boolean): Promise<number> => {
    stopping = stopChildren(children, { drain: opts.drain && !startFailed, deadlineMs, log });
    // Two signals in quick succession: the second arrived before there was anything to force.
    if (stopCalls > 1) stopping.force();
    const errors: unknown[] = await stopping.finished;
    if (paths && (ownsRunFiles || children.length > 0)) {
      try {
        // A supervisor-only launcher claimed no server file: it removes its pid file only.
        if (ownsRunFiles) removeRunFiles(paths);
        else rmSync(paths.supervisorPid, { force: true });
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) {
      log.error({ err: new AggregateError(errors, 'launcher shutdown had errors') }, 'launcher.shutdown_failed');
      return 1;
    }
    log.info('launcher.shutdown_completed');
    // A start that failed on its own (not because stop() came first) is reported through `ready`.
    return startFailed && stopCalls === 0 ? 1 : 0;
  };

  const ready = start();
  ready.catch(() => undefined);
  const done = (async () => {
    let startFailed = false;
    try {
      await ready;
      await stopRequested;
    } catch {
      startFailed = true;
    }
    return shutdown(startFailed);
  })();

  return {
    ready,
    done,
    stop() {
      stopCalls += 1;
      if (stopCalls === 1) wake();
      else stopping?.force();
    },
  };
}
