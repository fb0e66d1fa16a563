/** A minimal SSE reader over fetch, for tests: collects frames and lets a test await them. */
export interface SseFrame {
  id: number | undefined;
  data: Record<string, any>;
}

export interface SseClient {
  frames: SseFrame[];
  /** Resolves once `predicate` holds for the frames received so far. */
  until(predicate: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
  /** Resolves when the server ends the stream (or the connection drops). */
  ended: Promise<void>;
}

export async function openSse(url: string, opts: { lastEventId?: number } = {}): Promise<SseClient> {
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
  const res = await fetch(url, { headers, signal: abort.signal });
  if (!res.ok || !res.body) throw new Error(`SSE ${url} answered ${res.status}`);
  const frames: SseFrame[] = [];
  const waiters = new Set<() => void>();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          let id: number | undefined;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id:')) id = Number(line.slice(3).trim());
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length) frames.push({ id, data: JSON.parse(data.join('\n')) });
        }
        waiters.forEach((w) => w());
      }
    } catch {
      // aborted or dropped
    } finally {
      waiters.forEach((w) => w());
    }
  })();
  return {
    frames,
    ended,
    close: () => abort.abort(),
    until(predicate, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SSE condition not met; ${frames.length} frames received`));
        }, timeoutMs);
        const check = () => {
          if (predicate(frames)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}
