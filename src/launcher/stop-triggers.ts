/**
 * What tells a running `cairn serve` to stop: a signal, or, when npm started it, npm going away.
 *
 * SIGINT and SIGTERM stop it (a second one while draining forces the stop). SIGHUP is left at
 * its default on purpose: a terminal hangup kills the launcher, and its processes stop when
 * their IPC channel closes; a listener would replace the SIG_IGN that `nohup cairn serve &`
 * relies on, and the server would stop when the terminal closed.
 */
export const stopSignals = ['SIGINT', 'SIGTERM'] as const;

/** How often the launcher checks for its parent when it watches it; a stop starts within this. */
export const PARENT_POLL_MS = 500;

/** Why the server is stopping: the signal received, or the parent that exited. */
export type StopTrigger = { kind: 'signal'; signal: NodeJS.Signals } | { kind: 'parent_exited'; parentPid: number };

/**
 * Under npm one Ctrl-C reaches the launcher twice: from the terminal (npm and the launcher share
 * its foreground process group) and again from npm, which forwards SIGINT to its script. Taken
 * as two, the second would force a `--drain` stop. npm forwards within milliseconds; a person
 * pressing Ctrl-C again to force the stop takes longer than this.
 */
export const NPM_SIGNAL_ECHO_MS = 750;

export interface StopTriggerOptions {
  /** Stop when the parent process exits (see `isStartedByNpmScript`). */
  watchParent: boolean;
  /** A signal repeated within this many ms counts once (`NPM_SIGNAL_ECHO_MS` under npm; default 0). */
  coalesceMs?: number;
  pollMs?: number;
  /** The parent's pid now; `process.ppid` re-read on every call unless a test says otherwise. */
  readParentPid?: () => number;
  clock?: () => number;
}

/**
 * Whether npm started this process for a package script (`npm start`, `npm run <script>`): npm
 * sets `npm_lifecycle_event` for every script it runs, and nothing else does.
 *
 * npm forwards SIGINT and SIGTERM to its script, but a SIGHUP or SIGKILL to npm ends npm alone,
 * and the script would keep running with nobody to stop it. Under npm the launcher therefore
 * also stops when npm exits. Started any other way (a terminal, `nohup`, a service manager), it
 * keeps running when its parent exits, as a server is expected to.
 */
export function isStartedByNpmScript(env: NodeJS.ProcessEnv): boolean {
  return typeof env.npm_lifecycle_event === 'string' && env.npm_lifecycle_event !== '';
}

/**
 * Calls `onStop` on every stop signal (but once for a repeat within `coalesceMs`), and once when
 * the parent exits if `watchParent` is set.
 * An orphan is re-parented (to init or a subreaper), so a changed parent pid means the parent is
 * gone; polling it is the only portable way to notice, as no signal reports it. The timer is
 * unref'd: it never keeps the process alive. Returns the function that removes every trigger.
 */
export function listenForStop(onStop: (trigger: StopTrigger) => void, opts: StopTriggerOptions): () => void {
  const clock = opts.clock ?? Date.now;
  const lastAt = new Map<NodeJS.Signals, number>();
  const onSignal = (signal: NodeJS.Signals) => {
    const now = clock();
    const previous = lastAt.get(signal);
    lastAt.set(signal, now);
    if (previous !== undefined && now - previous < (opts.coalesceMs ?? 0)) return;
    onStop({ kind: 'signal', signal });
  };
  for (const signal of stopSignals) process.on(signal, onSignal);
  let timer: NodeJS.Timeout | undefined;
  if (opts.watchParent) {
    const readParentPid = opts.readParentPid ?? (() => process.ppid);
    const parentPid = readParentPid();
    timer = setInterval(() => {
      if (readParentPid() === parentPid) return;
      clearInterval(timer);
      onStop({ kind: 'parent_exited', parentPid });
    }, opts.pollMs ?? PARENT_POLL_MS);
    timer.unref();
  }
  return () => {
    for (const signal of stopSignals) process.off(signal, onSignal);
    clearInterval(timer);
  };
}
