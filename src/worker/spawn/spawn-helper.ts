import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { CairnError, coerceError } from '../../shared/errors.js';
import { killProcessGroup, startedNoLaterThan } from '../../shared/process-group.js';
import type {
  ChildEnd,
  ChildLauncher,
  LaunchCommand,
  LaunchedChild,
  LaunchResult,
  OutputSinks,
} from './child-launcher.js';
import { HelperDeaths, type HelperRestartLimit } from './helper-deaths.js';
import { HelperReplyReader, type HelperReply } from './helper-replies.js';
import { SPAWN_HELPER_PROGRAM } from './spawn-helper-program.js';
import { workerEnv } from './worker-env.js';

/** One helper process. */
interface Helper {
  proc: ChildProcess;
  /** Asked to end (`stop()`): it ends its children itself; they are not reported as lost. */
  stopping: boolean;
  /** It answered a request: it could run (HelperDeaths). */
  answered: boolean;
  /** Its end has been handled. */
  gone: boolean;
}

/** A request the helper has not answered yet. */
interface Launching {
  helper: Helper;
  command: LaunchCommand;
  sinks: OutputSinks;
  resolve(result: LaunchResult): void;
  reject(err: Error): void;
}

/** A child the helper started; `closed` settles once it exited and both streams closed. */
interface Running {
  helper: Helper;
  pid: number;
  /** When the helper reported the fork (epoch ms): a later process with this pid is not ours. */
  forkedAt: number;
  sinks: OutputSinks;
  end?: ChildEnd;
  openStreams: number;
  settleExited(end: ChildEnd): void;
  settleClosed(end: ChildEnd): void;
  fail(err: Error): void;
}

const errnoNames = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const signalNames = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

/**
 * The worker's side of one spawn helper process (see spawn-helper-program.ts for the protocol).
 * One per worker thread. If the helper dies, the children it was running are lost: their
 * process groups are killed (confirmed gone) and they end with `lost` set, so their attempts
 * are recorded interrupted and run again; requests it had not answered are sent to a new helper.
 * Helpers that keep dying before they can start anything are not started for a while (HelperDeaths).
 */
export class SpawnHelper implements ChildLauncher {
  readonly kind = 'helper' as const;
  private helper: Helper | undefined;
  private nextId = 0;
  private readonly launching = new Map<string, Launching>();
  private readonly running = new Map<string, Running>();
  private readonly deaths: HelperDeaths;

  constructor(
    private readonly perlPath: string,
    opts: { restartLimit?: HelperRestartLimit } = {},
  ) {
    this.deaths = new HelperDeaths(opts.restartLimit);
  }

  launch(command: LaunchCommand, sinks: OutputSinks): Promise<LaunchResult> {
    return new Promise<LaunchResult>((resolve, reject) => this.send({ command, sinks, resolve, reject }));
  }

  /** Ends the helper; it ends the children still running first (spawn-helper-program.ts). */
  stop(): void {
    if (!this.helper) return;
    this.helper.stopping = true;
    this.helper.proc.stdin?.end();
    this.helper = undefined;
  }

  private send(request: Omit<Launching, 'helper'>): void {
    let helper = this.helper;
    if (!helper) {
      const refusal = this.deaths.refusal();
      if (refusal) return request.resolve({ ok: false, error: refusal });
      helper = this.start();
    }
    const { command } = request;
    const id = String(++this.nextId);
    // argv[0] is the file itself, as Node's spawn sets it. The helper runs with the worker's
    // environment, so only the task's own variables travel with the request.
    const fields = [command.cwd, command.file, String(command.args.length + 1), command.file, ...command.args];
    for (const [key, value] of Object.entries(command.env)) fields.push(`${key}=${value}`);
    const payload = fields.join('\0');
    this.launching.set(id, { ...request, helper });
    helper.proc.stdin!.write(`spawn ${id} ${Buffer.byteLength(payload)}\n${payload}`);
  }

  private start(): Helper {
    const proc = spawn(this.perlPath, ['-e', SPAWN_HELPER_PROGRAM], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: workerEnv(),
    });
    const helper: Helper = { proc, stopping: false, answered: false, gone: false };
    this.helper = helper;
    const replies = new HelperReplyReader((reply) => this.onReply(helper, reply));
    proc.stdout!.on('data', (chunk: Buffer) => replies.push(chunk));
    // 'close' comes after the exit and after the last reply was read: a child whose end the
    // helper reported before it died keeps that end.
    proc.once('close', (code, signal) => this.onHelperGone(helper, signal ? `was killed by ${signal}` : `exited with code ${code}`));
    proc.once('error', (err) => this.onHelperGone(helper, `failed: ${err.message}`));
    proc.stdin!.on('error', () => {}); // a dead helper is reported through 'close'
    // The helper must not keep a thread or process alive on its own; attempts keep their own timers.
    proc.unref();
    (proc.stdin as unknown as { unref?: () => void }).unref?.();
    (proc.stdout as unknown as { unref?: () => void }).unref?.();
    return helper;
  }

  /** `how` the helper ended: `was killed by SIGKILL`, `exited with code 1`, `failed: ...`. */
  private onHelperGone(helper: Helper, how: string): void {
    if (helper.gone) return;
    helper.gone = true;
    if (this.helper === helper) this.helper = undefined;
    const launches = takeWhere(this.launching, (l) => l.helper === helper);
    const children = takeWhere(this.running, (c) => c.helper === helper);
    if (helper.stopping) {
      const err = new CairnError('INTERNAL', `spawn helper stopped (${how})`);
      for (const launch of launches) launch.reject(err);
      for (const child of children) child.fail(err);
      return;
    }
    const pid = helper.proc.pid ?? 'none';
    this.deaths.note(`pid ${pid} ${how}`, helper.answered);
    // A request it had not answered: if it forked, the child exits at its gate without running
    // anything (only the helper held the gate's write end), so it is asked of a new helper.
    for (const { command, sinks, resolve, reject } of launches) this.send({ command, sinks, resolve, reject });
    void this.killLost(children, `its spawn helper (perl, pid ${pid}) ${how}`);
  }

  /**
   * The children of a dead helper: nobody relays their output or reaps them any more, so each
   * group is killed, all at once, and only once it is gone does the child end as lost.
   */
  private async killLost(children: readonly Running[], lost: string): Promise<void> {
    await Promise.all(
      children.map(async (child) => {
        try {
          if (startedNoLaterThan(child.pid, child.forkedAt)) await killProcessGroup(child.pid, { graceMs: 0, signal: 'SIGKILL' });
        } catch (err) {
          return child.fail(coerceError(err));
        }
        const end: ChildEnd = { code: null, signal: null, lost };
        child.settleExited(end);
        child.settleClosed(end);
      }),
    );
  }

  private onReply(helper: Helper, { type, id, arg, body }: HelperReply): void {
    helper.answered = true;
    switch (type) {
      case 's':
        return this.onStarted(helper, id, Number(arg));
      case 'f': {
        const launch = this.launching.get(id);
        this.launching.delete(id);
        const [stage, errno, message] = body!.toString('utf8').split('\t');
        const code = errnoNames.get(Number(errno));
        launch?.resolve({ ok: false, error: { ...(code ? { code } : {}), message: `${stage}: ${message}` } });
        return;
      }
      case '1':
      case '2': {
        const child = this.running.get(id);
        if (child) (type === '1' ? child.sinks.stdout : child.sinks.stderr)(Buffer.from(body!));
        return;
      }
      case 'c': {
        const child = this.running.get(id);
        if (!child) return;
        child.openStreams--;
        this.settleIfClosed(id, child);
        return;
      }
      case 'x': {
        const child = this.running.get(id);
        if (!child) return;
        child.end = decodeWaitStatus(Number(arg));
        child.settleExited(child.end);
        this.settleIfClosed(id, child);
        return;
      }
    }
  }

  private onStarted(helper: Helper, id: string, pid: number): void {
    const launch = this.launching.get(id);
    if (!launch) return;
    this.launching.delete(id);
    let settleExited!: (end: ChildEnd) => void;
    let settleClosed!: (end: ChildEnd) => void;
    let fail!: (err: Error) => void;
    const exited = new Promise<ChildEnd>((resolve, reject) => {
      settleExited = resolve;
      fail = reject;
    });
    const closed = new Promise<ChildEnd>((resolve, reject) => {
      settleClosed = resolve;
      const failExited = fail;
      fail = (err) => {
        failExited(err);
        reject(err);
      };
    });
    // Neither promise may be left rejected and unobserved (the caller awaits one or the other).
    exited.catch(() => {});
    closed.catch(() => {});
    this.running.set(id, { helper, pid, forkedAt: Date.now(), sinks: launch.sinks, openStreams: 2, settleExited, settleClosed, fail });
    // Requests go to the child's own helper; once it is gone the child is handled as lost.
    const tell = (line: string) => void (helper.gone ? undefined : helper.proc.stdin!.write(line));
    const child: LaunchedChild = {
      pid,
      start: () => tell(`go ${id}\n`),
      exited,
      closed,
      release: () => {
        const running = this.running.get(id);
        if (!running) return;
        tell(`release ${id}\n`);
        running.openStreams = 0;
        this.settleIfClosed(id, running);
      },
    };
    launch.resolve({ ok: true, child });
  }

  private settleIfClosed(id: string, child: Running): void {
    if (child.end === undefined || child.openStreams > 0) return;
    this.running.delete(id);
    child.settleClosed(child.end);
  }
}

/** Removes and returns the entries of `map` that match. */
function takeWhere<T>(map: Map<string, T>, matches: (value: T) => boolean): T[] {
  const taken: T[] = [];
  for (const [key, value] of map) {
    if (!matches(value)) continue;
    map.delete(key);
    taken.push(value);
  }
  return taken;
}

/** A wait(2) status as Node reports an exit: a code, or the signal that killed it. */
export function decodeWaitStatus(status: number): ChildEnd {
  const signal = status & 0x7f;
  if (signal === 0) return { code: (status >> 8) & 0xff, signal: null };
  return { code: null, signal: signalNames.get(signal) ?? 'SIGKILL' };
}
