import type { Logger } from '../../shared/log.js';
import type { Store } from '../../store/store.js';
import { EventTailer } from './event-tailer.js';
import { StreamClient, type CloseReason, type FrameSink } from './stream-client.js';

export interface SseOptions {
  /** Interval of the `: heartbeat` comment. */
  heartbeatMs: number;
  /** Frames one client may have waiting in memory before it is dropped. */
  maxQueuedFrames: number;
}

export const defaultSseOptions: SseOptions = { heartbeatMs: 15_000, maxQueuedFrames: 10_000 };

export interface StreamRequest {
  /** Only events of this conversation's runs; undefined: every event (the dashboard). */
  conversationId: string | undefined;
  /** Replay after this seq first (from Last-Event-ID); undefined: live only. */
  afterSeq: number | undefined;
}

/** The API process's SSE streams: one tailer, fanned out to every open connection. */
export class SseHub {
  private readonly tailer: EventTailer;
  private readonly clients = new Set<StreamClient>();
  private closed = false;

  constructor(
    store: Store,
    private readonly log: Logger,
    private readonly opts: SseOptions,
    private readonly now: () => number,
  ) {
    this.tailer = new EventTailer(store, log);
  }

  get openStreams(): number {
    return this.clients.size;
  }

  /** Starts the tailer; await it before `open` so a failure can still be answered with an error. */
  start(): Promise<void> {
    return this.tailer.start();
  }

  /**
   * Opens a stream on `sink` (after `start`); the caller closes it with `close('client_gone')`
   * when the socket goes.
   */
  open(sink: FrameSink, request: StreamRequest): StreamClient {
    const { conversationId } = request;
    const log = this.log.child({ stream: conversationId ?? '__dashboard__' });
    let unsubscribe = (): void => {};
    const client = new StreamClient({
      sink,
      afterSeq: request.afterSeq,
      // The dashboard gets run events only; a conversation's stream its runs' and its chat's.
      matches: conversationId === undefined ? (f) => f.runId !== null : (f) => f.conversationId === conversationId,
      readBacklog: (afterSeq, limit) =>
        this.tailer.readFrames(afterSeq, limit, conversationId === undefined ? undefined : { conversationId }),
      maxQueuedFrames: this.opts.maxQueuedFrames,
      heartbeatMs: this.opts.heartbeatMs,
      now: this.now,
      onClose: (reason: CloseReason) => {
        unsubscribe();
        this.clients.delete(client);
        const level = reason === 'too_slow' ? 'warn' : 'debug';
        log[level]({ reason, open: this.clients.size }, 'sse.stream_closed');
      },
    });
    // Subscribe before the backlog is read: see StreamClient for why this leaves no gap.
    unsubscribe = this.tailer.subscribe((frame) => client.receive(frame));
    this.clients.add(client);
    log.debug({ afterSeq: request.afterSeq, open: this.clients.size }, 'sse.stream_opened');
    if (this.closed) {
      client.close('server_closing');
      return client;
    }
    client.run().catch((err: unknown) => {
      log.warn({ err }, 'sse.backlog_failed');
      client.close('server_closing');
    });
    return client;
  }

  /** Ends every stream and stops tailing (server shutdown). */
  close(): void {
    this.closed = true;
    for (const client of [...this.clients]) client.close('server_closing');
    this.tailer.stop();
  }
}

