import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from './api-client.js';
import { unreachableError } from './api-client.js';
import { CliError } from '../terminal/cli-error.js';
import { createSseParser, type SseMessage } from './sse-parser.js';

export interface FollowStreamOptions {
  client: ApiClient;
  conversationId: string;
  /** Resume after this event seq (a run's last recorded event); 0, the default, is from the first. */
  afterSeq?: number;
  signal: AbortSignal;
  /** Called for each message, in order, once; return true to stop following. */
  onMessage(message: SseMessage): boolean | void;
  /** Called before each reconnection attempt, with the last event id the stream will resume after. */
  onReconnect?(info: { lastEventId: string; attempt: number; error: unknown }): void;
  /** How long the server may stay unreachable before following gives up (default 60 s). */
  maxOutageMs?: number;
}

const RECONNECT_INITIAL_MS = 100;
const RECONNECT_MAX_MS = 2_000;

/**
 * Follows a conversation's SSE stream from its first event (or after `afterSeq`) until `onMessage` says stop. When the
 * stream drops (the API process restarted, the network blinked) it reconnects with
 * `Last-Event-ID`, so no event is missed and none is delivered twice.
 */
export async function followStream(opts: FollowStreamOptions): Promise<void> {
  const { client, signal } = opts;
  const base = `/api/stream/${encodeURIComponent(opts.conversationId)}`;
  let lastEventId = String(opts.afterSeq ?? 0);
  let delay = RECONNECT_INITIAL_MS;
  let outageStartedAt: number | undefined;
  let attempt = 0;
  for (;;) {
    signal.throwIfAborted();
    let error: unknown;
    try {
      const res = await client.openStream(
        lastEventId === '0' ? `${base}?lastEventId=0` : base,
        { headers: lastEventId === '0' ? {} : { 'Last-Event-ID': lastEventId }, signal },
      );
      outageStartedAt = undefined;
      delay = RECONNECT_INITIAL_MS;
      attempt = 0;
      const stopped = await readMessages(res, (message) => {
        if (message.id !== undefined) {
          if (Number(message.id) <= Number(lastEventId)) return false;
          lastEventId = message.id;
        }
        return opts.onMessage(message) === true;
      });
      if (stopped) return;
      error = new Error('the server closed the stream');
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (err instanceof CliError && err.code === 'SERVER_ERROR') throw err;
      error = err;
    }
    outageStartedAt ??= Date.now();
    if (Date.now() - outageStartedAt > (opts.maxOutageMs ?? 60_000)) throw unreachableError(client.address, error);
    attempt += 1;
    opts.onReconnect?.({ lastEventId, attempt, error });
    await sleep(delay, undefined, { signal });
    delay = Math.min(delay * 2, RECONNECT_MAX_MS);
  }
}

/** Reads a stream's messages until it ends (false) or `onMessage` returns true (true). */
async function readMessages(res: Response, onMessage: (m: SseMessage) => boolean): Promise<boolean> {
  if (!res.body) return false;
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      for (const message of parser.feed(decoder.decode(value, { stream: true }))) {
        if (onMessage(message)) return true;
      }
    }
  } finally {
    // Closing our side ends the request; ignore the error a cancelled or broken body raises.
    await reader.cancel().catch(() => undefined);
  }
}
