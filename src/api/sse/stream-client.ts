import type { TailFrame } from './event-tailer.js';
import { HEARTBEAT_COMMENT, formatHelloFrame } from './frames.js';

/** The writable side of one SSE response (a ServerResponse satisfies it). */
export interface FrameSink {
  write(chunk: string): boolean;
  end(): void;
  destroy(): void;
  once(event: 'drain', listener: () => void): unknown;
}

export type CloseReason = 'client_gone' | 'server_closing' | 'too_slow';

export interface StreamClientOptions {
  sink: FrameSink;
  /** Whether a live frame belongs to this stream. */
  matches: (frame: TailFrame) => boolean;
  /** Replay the matching rows after this seq before going live; undefined: live only. */
  afterSeq: number | undefined;
  /**
   * The seq this stream's frames follow: `afterSeq` when resuming, else the live feed's position
   * when the stream subscribed. The hello frame names it, so a client that loses the connection
   * before any event frame (no id to send back) can still resume exactly where it began.
   */
  startSeq: number;
  /** Reads matching rows after a seq, oldest first. */
  readBacklog: (afterSeq: number, limit: number) => Promise<TailFrame[]>;
  /** Frames waiting in memory past which the client is dropped (it reconnects with Last-Event-ID). */
  maxQueuedFrames: number;
  heartbeatMs: number;
  now: () => number;
  onClose: (reason: CloseReason) => void;
}

const BACKLOG_BATCH = 500;

/**
 * One SSE connection. Joins the backlog and the live feed so that each row is sent exactly once:
 * the caller subscribes `receive` to the tailer *before* calling `run`, live frames that arrive
 * while the backlog is being read wait in the queue, and every send skips a seq at or below the
 * last one sent. Rows only become visible in seq order, so the backlog (read after subscribing)
 * and the live feed (everything read after subscribing) overlap but leave no gap.
 */
export class StreamClient {
  private sentSeq: number;
  private live = false;
  private blocked = false;
  private closed = false;
  private queue: TailFrame[] = [];
  private head = 0;
  private drainWaiters: (() => void)[] = [];
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly opts: StreamClientOptions) {
    this.sentSeq = opts.startSeq;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends the hello frame, replays the backlog, then streams live frames until closed. */
  async run(): Promise<void> {
    this.writeRaw(formatHelloFrame(this.opts.now(), this.opts.startSeq));
    this.heartbeat = setInterval(() => {
      if (!this.blocked) this.writeRaw(HEARTBEAT_COMMENT);
    }, this.opts.heartbeatMs);
    this.heartbeat.unref();
    if (this.opts.afterSeq !== undefined) await this.replayBacklog(this.opts.afterSeq);
    if (this.closed) return;
    this.live = true;
    this.flush();
  }

  /** A frame from the tailer; frames arrive in seq order. */
  receive(frame: TailFrame): void {
    if (this.closed || !this.opts.matches(frame)) return;
    if (this.live && !this.blocked && this.head === this.queue.length) {
      this.send(frame);
      return;
    }
    this.queue.push(frame);
    if (this.queue.length - this.head > this.opts.maxQueuedFrames) this.close('too_slow');
  }

  close(reason: CloseReason): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.queue = [];
    this.head = 0;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
    // A blocked client would hold an ended response open until it reads; cut it instead.
    if (reason === 'too_slow' || this.blocked) this.opts.sink.destroy();
    else if (reason === 'server_closing') this.opts.sink.end();
    this.opts.onClose(reason);
  }

  private async replayBacklog(afterSeq: number): Promise<void> {
    let cursor = afterSeq;
    for (;;) {
      const frames = await this.opts.readBacklog(cursor, BACKLOG_BATCH);
      if (this.closed) return;
      // The page is read unfiltered where the stream filters (the dashboard skips chat frames),
      // so its length, not what is sent, says whether more follow.
      for (const frame of frames) if (this.opts.matches(frame)) this.send(frame);
      const last = frames.at(-1);
      if (!last || frames.length < BACKLOG_BATCH) return;
      cursor = last.seq;
      await this.drained();
      if (this.closed) return;
    }
  }

  private send(frame: TailFrame): void {
    if (frame.seq <= this.sentSeq) return;
    this.sentSeq = frame.seq;
    this.writeRaw(frame.text);
  }

  private writeRaw(text: string): void {
    if (this.closed) return;
    if (this.opts.sink.write(text) || this.blocked) return;
    this.blocked = true;
    this.opts.sink.once('drain', () => this.onDrain());
  }

  private onDrain(): void {
    this.blocked = false;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
    if (this.live) this.flush();
  }

  private flush(): void {
    while (!this.blocked && !this.closed && this.head < this.queue.length) {
      const frame = this.queue[this.head++];
      if (frame) this.send(frame);
    }
    if (this.head === this.queue.length || this.head > 1024) {
      // Drop sent frames so the array holds no more than what still waits.
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private drained(): Promise<void> {
    if (!this.blocked) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }
}
