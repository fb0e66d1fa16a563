/** One dispatched Server-Sent Events message. */
export interface SseMessage {
  /** The `id:` field of this message, when it had one. */
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream grammar): feed it text as it
 * arrives, in chunks split anywhere, and it returns the messages completed by each chunk.
 * Comment lines (`: heartbeat`) are skipped; a message without `data:` is not dispatched.
 */
export function createSseParser(): { feed(chunk: string): SseMessage[] } {
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;

  const takeLine = (line: string, out: SseMessage[]) => {
    if (line === '') {
      if (data.length > 0) out.push({ id, event, data: data.join('\n') });
      data = [];
      id = undefined;
      event = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'event') event = value;
  };

  return {
    feed(chunk) {
      buffer += chunk;
      const out: SseMessage[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone trailing \r may be the first half of \r\n: wait for the next chunk.
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) break;
        takeLine(buffer.slice(0, match.index), out);
        buffer = buffer.slice(match.index + match[0].length);
      }
      return out;
    },
  };
}
