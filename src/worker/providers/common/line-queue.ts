/**
 * Lines of a child's stdout, as an async iterable: pushed as bytes arrive, read one at a time
 * by the adapter, ended when the child's streams close. Unbounded: a CLI's stream-json output
 * is read as fast as it is produced.
 */
export class LineQueue implements AsyncIterable<string> {
  private readonly lines: string[] = [];
  private partial = '';
  private ended = false;
  private wake: (() => void) | undefined;

  push(chunk: Buffer): void {
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') this.lines.push(line);
    this.notify();
  }

  end(): void {
    if (this.partial.trim() !== '') this.lines.push(this.partial);
    this.partial = '';
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) {
        yield line;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
