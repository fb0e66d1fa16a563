import type { Logger } from '../../shared/log.js';
import type { StreamEvent } from '../../store/schemas/event.js';
import type { EventFilter, Store } from '../../store/store.js';
import { formatEventFrame, toStreamPayload } from './frames.js';
import { RunNames } from './run-names.js';

/** A durable event, formatted once as an SSE frame and shared by every stream it matches. */
export interface TailFrame {
  seq: number;
  conversationId: string;
  /** Null for a conversation's chat event (the dashboard shows run events only). */
  runId: string | null;
  text: string;
}

export type FrameListener = (frame: TailFrame) => void;

/** Rows read per query: big enough to catch up quickly, small enough to keep each read short. */
const READ_BATCH = 200;
/** After a failed read, try again even if no further commit wakes us. */
const RETRY_AFTER_MS = 1000;

/**
 * The one reader of the `events` table in an API process. Woken by the store's change
 * notification, it reads every row after the last `seq` it has seen and hands each frame, in
 * `seq` order, to every current listener. A listener therefore sees every row committed after it
 * subscribed; rows before that are read with `readFrames` (see StreamClient for how the two are
 * joined without a gap or a repeat).
 */
export class EventTailer {
  private readonly listeners = new Set<FrameListener>();
  private readonly names: RunNames;
  private lastSeq = 0;
  private started: Promise<void> | undefined;
  private stopWatching: (() => void) | undefined;
  private reading = false;
  private wakeAgain = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<Store, 'onChange' | 'listEventsAfter' | 'lastEventSeq' | 'getRun'>,
    private readonly log: Logger,
  ) {
    this.names = new RunNames(store);
  }

  /** Starts tailing from the newest row (once); later calls wait for the same start. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.lastSeq = await this.store.lastEventSeq();
      if (this.stopped) return;
      this.stopWatching = this.store.onChange(() => this.wake());
      this.log.debug({ lastSeq: this.lastSeq }, 'sse.tailer_started');
    })().catch((err: unknown) => {
      this.started = undefined; // let the next stream try again
      throw err;
    });
    return this.started;
  }

  /**
   * The seq of the last row handed to the listeners: a listener added now receives exactly the
   * rows after it (frames are handed out synchronously, in seq order).
   */
  get position(): number {
    return this.lastSeq;
  }

  /** Adds a listener; frames for rows read from now on reach it. Returns the unsubscribe. */
  subscribe(listener: FrameListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rows after `afterSeq` that match `filter`, as frames (a stream's backlog). */
  async readFrames(afterSeq: number, limit: number, filter?: EventFilter): Promise<TailFrame[]> {
    return this.toFrames(await this.store.listEventsAfter(afterSeq, limit, filter));
  }

  stop(): void {
    this.stopped = true;
    this.stopWatching?.();
    if (this.retry) clearTimeout(this.retry);
    this.listeners.clear();
  }

  /** Reads now, or once more after the read in progress: no wake-up is ever lost. */
  private wake(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.wakeAgain = true;
      return;
    }
    this.reading = true;
    void this.readNew().finally(() => {
      this.reading = false;
    });
  }

  private async readNew(): Promise<void> {
    try {
      do {
        this.wakeAgain = false;
        for (;;) {
          const events = await this.store.listEventsAfter(this.lastSeq, READ_BATCH);
          if (this.stopped) return;
          for (const frame of await this.toFrames(events)) {
            this.lastSeq = frame.seq;
            for (const listener of this.listeners) listener(frame);
          }
          if (events.length < READ_BATCH) break;
          // The store answers from a resolved promise, so without this the whole backlog of a
          // big fan-out would be read and sent in one turn of the event loop, and every request
          // (`/health` included) would wait for it.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } while (this.wakeAgain && !this.stopped);
    } catch (err) {
      this.log.warn({ err, lastSeq: this.lastSeq }, 'sse.tailer_read_failed');
      this.retry = setTimeout(() => this.wake(), RETRY_AFTER_MS);
      this.retry.unref();
    }
  }

  private async toFrames(events: readonly StreamEvent[]): Promise<TailFrame[]> {
    await this.names.load(events);
    return events.map((event) => ({
      seq: event.seq,
      conversationId: event.conversation_id,
      runId: event.run_id,
      text: formatEventFrame(toStreamPayload(event, event.run_id === null ? '' : this.names.nameOf(event.run_id))),
    }));
  }
}
