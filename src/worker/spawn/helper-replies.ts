/** One reply frame of the spawn helper (the protocol is in spawn-helper-program.ts). */
export interface HelperReply {
  /** `s` forked, `f` could not fork, `1`/`2` output bytes, `c` a stream closed, `x` exited. */
  type: string;
  id: string;
  arg: string;
  /** The payload of `f`, `1` and `2` frames. */
  body?: Buffer;
}

const NEWLINE = 0x0a;

/** Splits one helper's stdout into reply frames: a header line, then for data frames the announced number of bytes. */
export class HelperReplyReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onReply: (reply: HelperReply) => void) {}

  push(chunk: Buffer): void {
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
        this.onReply({ type, id, arg, body });
      } else {
        buf = buf.subarray(nl + 1);
        this.onReply({ type, id, arg });
      }
    }
    // Keep only the unparsed tail; copy it so the big chunk it came from can be collected.
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  }
}
