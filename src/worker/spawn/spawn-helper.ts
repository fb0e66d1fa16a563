import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { CairnError } from '../../shared/errors.js';
import type {
  ChildEnd,
  ChildLauncher,
  LaunchCommand,
  LaunchedChild,
  LaunchResult,
  OutputSinks,
} from './child-launcher.js';
import { SPAWN_HELPER_PROGRAM } from './spawn-helper-program.js';
import { workerEnv } from './worker-env.js';

interface Launching {
  sinks: OutputSinks;
  resolve(result: LaunchResult): void;
  reject(err: Error): void;
}

/** A child the helper started; `closed` settles once it exited and both streams closed. */
interface Running {
  sinks: OutputSinks;
  end?: ChildEnd;
  openStreams: number;
  settleExited(end: ChildEnd): void;
  settleClosed(end: ChildEnd): void;
  fail(err: Error): void;
}

const NEWLINE = 0x0a;
const errnoNames = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const signalNames = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

/**
 * The worker's side of one spawn helper process (see spawn-helper-program.ts for the protocol).
 * One per worker thread; if it dies, its attempts fail and the next launch starts a new one.
 */
export class SpawnHelper implements ChildLauncher {
  readonly kind = 'helper' as const;
  private proc: ChildProcess | undefined;
  private nextId = 0;
  private readonly launching = new Map<string, Launching>();
  private readonly running = new Map<string, Running>();
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly perlPath: string) {}

  launch(command: LaunchCommand, sinks: OutputSinks): Promise<LaunchResult> {
    const proc = this.proc ?? this.start();
    const id = String(++this.nextId);
    // argv[0] is the file itself, as Node's spawn sets it. The helper runs with the worker's
    // environment, so only the task's own variables travel with the request.
    const fields = [command.cwd, command.file, String(command.args.length + 1), command.file, ...command.args];
    for (const [key, value] of Object.entries(command.env)) fields.push(`${key}=${value}`);
    const payload = fields.join('\0');
    return new Promise<LaunchResult>((resolve, reject) => {
      this.launching.set(id, { sinks, resolve, reject });
      proc.stdin!.write(`spawn ${id} ${Buffer.byteLength(payload)}\n${payload}`);
    });
  }

  /** Ends the helper; children it started live on in their own sessions. */
  stop(): void {
    this.proc?.stdin?.end();
    this.proc = undefined;
  }

  private start(): ChildProcess {
    const proc = spawn(this.perlPath, ['-e', SPAWN_HELPER_PROGRAM], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: workerEnv(),
    });
    this.proc = proc;
    this.pending = Buffer.alloc(0);
    proc.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
    proc.once('exit', (code, signal) => this.onHelperExit(proc, `spawn helper exited (code ${code}, signal ${signal})`));
    proc.once('error', (err) => this.onHelperExit(proc, `spawn helper failed: ${err.message}`));
    proc.stdin!.on('error', () => {}); // a dead helper is reported through 'exit'
    // The helper must not keep a thread or process alive on its own; attempts keep their own timers.
    proc.unref();
    (proc.stdin as unknown as { unref?: () => void }).unref?.();
    (proc.stdout as unknown as { unref?: () => void }).unref?.();
    return proc;
  }

  private onHelperExit(proc: ChildProcess, reason: string): void {
    if (this.proc === proc) this.proc = undefined;
    const err = new CairnError('INTERNAL', reason);
    for (const launch of this.launching.values()) launch.reject(err);
    for (const child of this.running.values()) child.fail(err);
    this.launching.clear();
    this.running.clear();
  }

  /** Parses reply frames: a header line, then for data frames the announced number of bytes. */
  private onData(chunk: Buffer): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const nl = buf.indexOf(NEWLINE);
      if (nl < 0) break;
      const [type, id, arg] = buf.toString('latin1', 0, nl).split(' ') as [string, string, string];
      if (type === '1' || type === '2' || type === 'f') {
        const len = Number(arg);
        if (buf.length < nl + 1 + len) break;
        const body = buf.subarray(nl + 1, nl + 1 + len);
        buf = buf.subarray(nl + 1 + len);
        this.onFrame(type, id, arg, body);
      } else {
        buf = buf.subarray(nl + 1);
        this.onFrame(type, id, arg, undefined);
      }
    }
    // Keep only the unparsed tail; copy it so the big chunk it came from can be collected.
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  }

  private onFrame(type: string, id: string, arg: string, body: Buffer | undefined): void {
    switch (type) {
      case 's':
        return this.onStarted(id, Number(arg));
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

  private onStarted(id: string, pid: number): void {
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
    this.running.set(id, { sinks: launch.sinks, openStreams: 2, settleExited, settleClosed, fail });
    const child: LaunchedChild = {
      pid,
      start: () => void this.proc?.stdin!.write(`go ${id}\n`),
      exited,
      closed,
      release: () => {
        const running = this.running.get(id);
        if (!running) return;
        this.proc?.stdin!.write(`release ${id}\n`);
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

/** A wait(2) status as Node reports an exit: a code, or the signal that killed it. */
export function decodeWaitStatus(status: number): ChildEnd {
  const signal = status & 0x7f;
  if (signal === 0) return { code: (status >> 8) & 0xff, signal: null };
  return { code: null, signal: signalNames.get(signal) ?? 'SIGKILL' };
}
