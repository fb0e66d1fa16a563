import { fstatSync, write, writeSync } from 'node:fs';

/** Lines held while the output cannot take them; past this, new lines are dropped (and counted). */
const MAX_HELD_BYTES = 1024 * 1024;
/** After a write error, how long to hold lines before trying the output again. */
const RETRY_AFTER_ERROR_MS = 1_000;
/** After EAGAIN (a non-blocking pipe that is full), how long before trying again. */
const RETRY_AFTER_EAGAIN_MS = 10;

export interface LogDestinationOptions {
  maxHeldBytes?: number;
  retryAfterErrorMs?: number;
}

/**
 * Where a process's log lines go (its stdout by default), written so that a log line never
 * blocks the event loop or crashes the process. pino's own stdout stream does both when stdout
 * is a file on a full disk: its write error is an unhandled `error` event, and the exit handler
 * that follows retries `write(1)` every 100 ms, synchronously, until space returns.
 *
 * A line the output cannot take is held, in order, and the held lines are tried again on a
 * timer, every second after an error; beyond 1 MiB held, new lines are dropped. Once lines flow
 * again, `onLinesDropped` is told how many were lost, so the logger can say so in the log itself.
 * A file or a terminal gets each line at once (`writeSync`: it takes it or fails at once, with
 * ENOSPC or EIO). A pipe or a socket may block for as long as its reader does, so it is written
 * from the thread pool (`write`), one batch at a time, and lines queue behind it meanwhile.
 */
export class LogDestination {
  /** Called (on a later tick) with the number of lines dropped, once the output takes lines again. */
  onLinesDropped: ((count: number) => void) | undefined;
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private dropped = 0;
  private retry: NodeJS.Timeout | undefined;
  /** Bytes handed to an asynchronous write that has not answered yet (counted in heldBytes). */
  private inFlight: Buffer | undefined;
  private readonly immediate: boolean;
  private readonly maxHeldBytes: number;
  private readonly retryAfterErrorMs: number;

  constructor(
    private readonly fd = 1,
    opts: LogDestinationOptions = {},
  ) {
    this.maxHeldBytes = opts.maxHeldBytes ?? MAX_HELD_BYTES;
    this.retryAfterErrorMs = opts.retryAfterErrorMs ?? RETRY_AFTER_ERROR_MS;
    this.immediate = neverBlocks(fd);
    // Lines still held when the process exits get one last try, without waiting.
    process.once('exit', () => this.flushSync());
  }

  /** pino's write: one serialized line. Never throws, never waits. */
  write(line: string): void {
    const bytes = Buffer.from(line);
    if (this.heldBytes + bytes.length > this.maxHeldBytes) {
      this.dropped += 1;
      return;
    }
    this.held.push(bytes);
    this.heldBytes += bytes.length;
    if (this.retry === undefined && this.inFlight === undefined) this.writeHeld();
  }

  /**
   * One synchronous attempt at the held lines (the exit path: nothing may wait there). A batch a
   * pool write still has is left to it: written again here, it could appear twice.
   */
  flushSync(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    if (this.inFlight !== undefined && this.held[0] === this.inFlight) {
      this.held.shift();
      this.heldBytes -= this.inFlight.length;
      this.inFlight = undefined;
    }
    this.writeHeldNow();
    if (this.retry) clearTimeout(this.retry);
  }

  private writeHeld(): void {
    if (this.immediate) this.writeHeldNow();
    else this.writeHeldInPool();
  }

  /** Writes held lines in order until none are left or the output refuses; then waits to try again. */
  private writeHeldNow(): void {
    while (this.held.length > 0) {
      const next = this.held[0]!;
      let written: number;
      try {
        written = writeSync(this.fd, next);
      } catch (err) {
        this.retryLater(err);
        return;
      }
      this.wrote(written, next);
    }
    if (this.dropped > 0) this.reportDropped();
  }

  /** Hands every held line to one write in the thread pool; the next batch goes when it answers. */
  private writeHeldInPool(): void {
    if (this.held.length === 0) {
      if (this.dropped > 0) this.reportDropped();
      return;
    }
    const batch = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held);
    this.held.length = 0;
    this.held.push(batch);
    this.inFlight = batch;
    write(this.fd, batch, (err, written) => {
      if (this.inFlight !== batch) return; // given up by flushSync at exit
      this.inFlight = undefined;
      if (err) return this.retryLater(err);
      this.wrote(written, batch);
      if (this.retry === undefined) this.writeHeldInPool();
    });
  }

  /** `written` bytes of the first held buffer went out; a partial write keeps the rest first in line. */
  private wrote(written: number, buffer: Buffer): void {
    this.heldBytes -= written;
    if (written < buffer.length) this.held[0] = buffer.subarray(written);
    else this.held.shift();
  }

  private retryLater(err: unknown): void {
    const eagain = (err as NodeJS.ErrnoException).code === 'EAGAIN';
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.writeHeld();
    }, eagain ? RETRY_AFTER_EAGAIN_MS : this.retryAfterErrorMs);
    // A log line waiting for its output never keeps a process alive.
    this.retry.unref();
  }

  private reportDropped(): void {
    const count = this.dropped;
    this.dropped = 0;
    // On a later tick: the report is itself a log line, written through this destination.
    if (this.onLinesDropped) setImmediate(this.onLinesDropped, count).unref();
  }
}

/** A file, a terminal or a device answers a write at once; a pipe or a socket may make it wait. */
function neverBlocks(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFile() || stat.isCharacterDevice();
  } catch {
    return false;
  }
}
