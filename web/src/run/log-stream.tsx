import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import type { AttemptLog } from '../types.js';

/**
 * One stream (stdout or stderr) of a finished attempt. A stream stored whole is shown as it is.
 * A longer one (its preview was truncated) is read a chunk at a time
 * (`GET …/logs/{seq}/{stream}?offset=&limit=`): the first chunk at once, the next each time the
 * end of what is loaded scrolls into view, never the whole stream in one answer. **End** reads
 * the last chunk (`align=line`, so it starts on a whole line) and shows it below a marker of the
 * part not read yet, which fills in from above as it is scrolled to.
 */

/** Bytes per request: a few thousand lines of a typical log. */
export const LOG_CHUNK_BYTES = 64 * 1024;

type Stream = 'stdout' | 'stderr';
interface Chunk {
  text: string;
  offset: number;
  nextOffset: number | null;
  totalBytes: number;
}
/**
 * Text covering the bytes [start, end) of the stream, as blocks of whole lines (each drawn as its
 * own element, so a chunk read later adds one block instead of redrawing all the text above it),
 * and the start of a line cut by the chunk's end, kept until the next chunk completes it.
 */
interface Part {
  blocks: string[];
  carry: string;
  start: number;
  end: number;
}

/** `part` with `text` (the bytes that follow it) added: its whole lines as a new block. */
function extend(part: Part, text: string, end: number): Part {
  const all = part.carry + text;
  const cut = all.lastIndexOf('\n') + 1;
  return { blocks: cut > 0 ? [...part.blocks, all.slice(0, cut)] : part.blocks, carry: all.slice(cut), start: part.start, end };
}

/** The blocks to draw, the cut line last when nothing follows it yet. */
const blocksOf = (part: Part): string[] => (part.carry ? [...part.blocks, part.carry] : part.blocks);

export function LogStream(props: { runId: string; log: AttemptLog; stream: Stream }) {
  const view = props.log[props.stream];
  if (!view?.text) return null;
  if (!view.truncated) return <pre class={props.stream}>{view.text}</pre>;
  return <PagedLog runId={props.runId} seq={props.log.seq} stream={props.stream} bytes={view.bytes} />;
}

function PagedLog(props: { runId: string; seq: number; stream: Stream; bytes: number }) {
  const [head, setHead] = useState<Part | undefined>(undefined);
  const [tail, setTail] = useState<Part | undefined>(undefined);
  const [total, setTotal] = useState(props.bytes);
  const [error, setError] = useState<string | undefined>(undefined);
  const busy = useRef(false);
  const box = useRef<HTMLDivElement>(null);
  const marker = useRef<HTMLDivElement>(null);
  const scrollToEnd = useRef(false);

  const read = (offset: number, limit: number, align?: 'line') =>
    getJson<Chunk>(
      withQuery(`/api/workflows/runs/${encodeURIComponent(props.runId)}/logs/${props.seq}/${props.stream}`, { offset, limit, align }),
    );

  useEffect(() => {
    let live = true;
    setHead(undefined);
    setTail(undefined);
    read(0, LOG_CHUNK_BYTES)
      .then((chunk) => {
        if (!live) return;
        setTotal(chunk.totalBytes);
        setHead(extend({ blocks: [], carry: '', start: 0, end: 0 }, chunk.text, chunk.nextOffset ?? chunk.totalBytes));
      })
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [props.runId, props.seq, props.stream]);

  const complete = head !== undefined && (tail ? head.end >= tail.start : head.end >= total);

  /** Reads the next chunk after what is loaded from the start (up to the end part, if read). */
  const more = async () => {
    if (!head || complete || busy.current) return;
    busy.current = true;
    try {
      const limit = tail ? Math.min(LOG_CHUNK_BYTES, tail.start - head.end) : LOG_CHUNK_BYTES;
      const chunk = await read(head.end, limit);
      const grown = extend(head, chunk.text, chunk.nextOffset ?? chunk.totalBytes);
      if (tail && grown.end >= tail.start) {
        // The two meet: one part, the end's blocks after the start's (the end began on a whole line).
        setHead({ blocks: [...blocksOf(grown), ...tail.blocks], carry: tail.carry, start: 0, end: tail.end });
        setTail(undefined);
      } else setHead(grown);
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      busy.current = false;
    }
  };

  /** Reads the last chunk, unless it is loaded already, and scrolls to it. */
  const end = async () => {
    scrollToEnd.current = true;
    if (!head || complete || tail || busy.current) {
      setHead((h) => h && { ...h });
      return;
    }
    busy.current = true;
    try {
      const chunk = await read(Math.max(head.end, total - LOG_CHUNK_BYTES), LOG_CHUNK_BYTES, 'line');
      const end = chunk.nextOffset ?? chunk.totalBytes;
      if (chunk.offset <= head.end) setHead(extend(head, chunk.text, end));
      else setTail(extend({ blocks: [], carry: '', start: chunk.offset, end: chunk.offset }, chunk.text, end));
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      busy.current = false;
    }
  };

  // After each render: scroll to the end when asked; read on while the marker is in view (a
  // chunk may not fill the box, and a scroll that lands on the marker again needs no new event).
  useEffect(() => {
    const container = box.current;
    if (!container) return;
    if (scrollToEnd.current) {
      scrollToEnd.current = false;
      container.scrollTop = container.scrollHeight;
    }
    const target = marker.current;
    if (!target) return;
    const inView = () => {
      const a = target.getBoundingClientRect();
      const b = container.getBoundingClientRect();
      return a.bottom >= b.top && a.top <= b.bottom;
    };
    if (inView()) void more();
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void more(), { root: container });
    observer.observe(target);
    return () => observer.disconnect();
  });

  const loaded = head ? head.end - head.start + (tail ? tail.end - tail.start : 0) : 0;
  return (
    <div class={`paged-log ${props.stream}`} data-log-stream={props.stream}>
      <div class="log-bar">
        <span class="muted" data-log-loaded>
          {complete ? `all ${bytesText(total)}` : `${bytesText(loaded)} of ${bytesText(total)} read`}
        </span>
        <button type="button" class="btn" onClick={() => void end()}>
          End
        </button>
      </div>
      <div class="log-scroll" ref={box}>
        {head ? blocksOf(head).map((block, i) => <pre key={i}>{block}</pre>) : null}
        {head && !complete ? (
          <div class="log-gap muted" ref={marker} data-log-gap>
            {bytesText((tail?.start ?? total) - head.end)} not read yet: scroll here to read on
          </div>
        ) : null}
        {tail ? (
          <div data-log-tail>
            {blocksOf(tail).map((block, i) => (
              <pre key={i}>{block}</pre>
            ))}
          </div>
        ) : null}
      </div>
      {error ? <p class="error-text">{error}</p> : null}
    </div>
  );
}

function bytesText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
