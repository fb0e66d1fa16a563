/**
 * Bounded capture of a child's output streams, so that a node printing without end cannot
 * exhaust the worker's memory.
 */

/** Most of stdout kept as the node's output. */
export const STDOUT_CAP_BYTES = 16 * 1024 * 1024;
/** How much of the end of stderr is kept for the error text. */
export const STDERR_TAIL_BYTES = 8 * 1024;
/** Most of stderr kept for the attempt's logs (the head; its end is in the error text). */
export const STDERR_CAP_BYTES = 1024 * 1024;

/**
 * Keeps the first `capBytes` of a stream. Past the cap the rest is read and dropped (so the
 * child never blocks on a full pipe) and `truncated` is set: the node still completes, with the
 * head of its output, and the record says it was cut. Failing the node instead would turn a
 * chatty but successful command into a failure; keeping the tail would drop the start that
 * structured output (JSON) begins with.
 */
export class HeadCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte the stream produced, kept or not. */
  totalBytes = 0;

  constructor(private readonly capBytes: number = STDOUT_CAP_BYTES) {}

  get truncated(): boolean {
    return this.totalBytes > this.kept;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = this.capBytes - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  text(): string {
    return this.chunks.length === 1 ? this.chunks[0]!.toString('utf8') : Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Keeps only the last `tailBytes` of a stream. */
export class TailCapture {
  private chunks: Buffer[] = [];
  private kept = 0;

  constructor(private readonly tailBytes: number = STDERR_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
    // Drop whole chunks from the front while the rest still covers the tail.
    while (this.chunks.length > 1 && this.kept - this.chunks[0]!.length >= this.tailBytes) {
      this.kept -= this.chunks.shift()!.length;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    const tail = all.length > this.tailBytes ? all.subarray(all.length - this.tailBytes) : all;
    return tail.toString('utf8');
  }
}

/** Removes exactly one trailing line ending (`\n` or `\r\n`), as the upstream system does. */
export function trimTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}
