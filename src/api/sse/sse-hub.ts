import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { Store } from '../../store/store.js';
import { EventTailer } from './event-tailer.js';
import { StreamClient, type CloseReason, type FrameSink } from './stream-client.js';

export interface SseOptions {
  /** Interval of the `: heartbeat` comment. */
  heartbeatMs: number;
  /** Frames one client may have waiting in memory before it is dropped. */
  maxQueuedFrames: number;
  /** Streams open at once, in all and from one client address (stream-limits.ts). */
  maxStreams: number;
  maxStreamsPerClient: number;
  /** The open-file limit the caps come from, for the refusal's text; undefined: not derived from one. */
  openFilesLimit?: number;
}

/** Without caps of their own, streams are capped as an API process with a 1024-file limit would cap them. */
export const defaultSseOptions: SseOptions = { heartbeatMs: 15_000, maxQueuedFrames: 10_000, maxStreams: 768, maxStreamsPerClient: 384 };

/** The settings a refusal names, so the operator knows what to raise. */
export const streamLimitText = {
  total: (max: number, openFilesLimit: number | undefined) =>
    `Too many event streams are open: this server serves at most ${max} at once` +
    (openFilesLimit !== undefined ? ` (under its open-file limit of ${openFilesLimit})` : '') +
    '; close one (a dashboard tab, a `cairn run` that follows a run) or try again later. ' +
    'The cap is CAIRN_MAX_STREAMS (or server.maxStreams in config.yaml).',
  perClient: (address: string, max: number) =>
    `Too many event streams from ${address}: at most ${max} at once from one client address; close one of them ` +
    'or try again later. The cap is CAIRN_MAX_STREAMS_PER_CLIENT (or server.maxStreamsPerClient in config.yaml).',
} as const;

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
  private readonly perAddress = new Map<string, number>();
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
   * Throws STREAM_LIMIT_REACHED when one more stream from `address` would pass a cap. Call it
   * right before `open`, with no await between, so that the check and the count are one step.
   */
  admit(address: string): void {
    const { maxStreams, maxStreamsPerClient, openFilesLimit } = this.opts;
    if (this.clients.size >= maxStreams) {
      throw new CairnError('STREAM_LIMIT_REACHED', streamLimitText.total(maxStreams, openFilesLimit));
    }
    if ((this.perAddress.get(address) ?? 0) >= maxStreamsPerClient) {
      throw new CairnError('STREAM_LIMIT_REACHED', streamLimitText.perClient(address, maxStreamsPerClient));
    }
  }

  /**
   * Opens a stream on `sink` (after `start` and `admit`) for a client at `address`; the caller
   * closes it with `close('client_gone')` when the socket goes.
   */
  open(sink: FrameSink, request: StreamRequest, address = ''): StreamClient {
    const { conversationId } = request;
    const log = this.log.child({ stream: conversationId ?? '__dashboard__' });
    let unsubscribe = (): void => {};
    const client = new StreamClient({
      sink,
      afterSeq: request.afterSeq,
      // Read in the same turn as the subscription below: what comes live is what follows it.
      startSeq: request.afterSeq ?? this.tailer.position,
      // The dashboard gets run events only; a conversation's stream its runs' and its chat's.
      matches: conversationId === undefined ? (f) => f.runId !== null : (f) => f.conversationId === conversationId,
      readBacklog: (afterSeq, limit) =>
        this.tailer.readFrames(afterSeq, limit, conversationId === undefined ? undefined : { conversationId }),
      maxQueuedFrames: this.opts.maxQueuedFrames,
      heartbeatMs: this.opts.heartbeatMs,
      now: this.now,
      onClose: (reason: CloseReason) => {
        unsubscribe();
        if (this.clients.delete(client)) this.count(address, -1);
        const level = reason === 'too_slow' ? 'warn' : 'debug';
        log[level]({ reason, open: this.clients.size }, 'sse.stream_closed');
      },
    });
    // Subscribe before the backlog is read: see StreamClient for why this leaves no gap.
    unsubscribe = this.tailer.subscribe((frame) => client.receive(frame));
    this.clients.add(client);
    this.count(address, +1);
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

  private count(address: string, by: 1 | -1): void {
    const n = (this.perAddress.get(address) ?? 0) + by;
    if (n > 0) this.perAddress.set(address, n);
    else this.perAddress.delete(address);
  }

  /** Ends every stream and stops tailing (server shutdown). */
  close(): void {
    this.closed = true;
    for (const client of [...this.clients]) client.close('server_closing');
    this.tailer.stop();
  }
}

