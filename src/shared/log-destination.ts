import { writeSync } from 'node:fs';

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
 * Here each line is written at once when nothing is held (`writeSync`: a file or a terminal
 * takes it or fails at once, with ENOSPC or EIO). A line the output cannot take is held, in
 * order, and the held lines are tried again on a timer, every second after an error; beyond
 * 1 MiB held, new lines are dropped. Once lines flow again, `onLinesDropped` is told how many
 * were lost, so the logger can say so in the log itself.
 */
export class LogDestination {
  /** Called (on a later tick) with the number of lines dropped, once the output takes lines again. */
  onLinesDropped: ((count: number) => void) | undefined;
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private dropped = 0;
  private retry: NodeJS.Timeout | undefined;
  private readonly maxHeldBytes: number;
  private readonly retryAfterErrorMs: number;

  constructor(
    private readonly fd = 1,
    opts: LogDestinationOptions = {},
  ) {
    this.maxHeldBytes = opts.maxHeldBytes ?? MAX_HELD_BYTES;
    this.retryAfterErrorMs = opts.retryAfterErrorMs ?? RETRY_AFTER_ERROR_MS;
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
    if (this.retry === undefined) this.writeHeld();
  }

  /** One attempt at writing what is held (the exit path: nothing may wait there). */
  flushSync(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.writeHeld();
    if (this.retry) clearTimeout(this.retry);
  }

  /** Writes held lines in order until none are left or the output refuses; then waits to try again. */
  private writeHeld(): void {
    while (this.held.length > 0) {
      const next = this.held[0]!;
      let written: number;
      try {
        written = writeSync(this.fd, next);
      } catch (err) {
        const eagain = (err as NodeJS.ErrnoException).code === 'EAGAIN';
        this.retryLater(eagain ? RETRY_AFTER_EAGAIN_MS : this.retryAfterErrorMs);
        return;
      }
      this.heldBytes -= written;
      // A partial write (the disk filled mid-line): the rest of the line goes first next time.
      if (written < next.length) this.held[0] = next.subarray(written);
      else this.held.shift();
    }
    if (this.dropped > 0) this.reportDropped();
  }

  private retryLater(delayMs: number): void {
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.writeHeld();
    }, delayMs);
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
