/**
 * How many SSE streams the API serves at once, in all and per client address. Each stream holds
 * a socket, a descriptor of the API process's own; past its open-file limit (commonly 1024)
 * `accept()` fails and every other request is reset, health probes included. So the cap stays
 * below that limit with a reserve for the API's other work (its database files, the requests
 * that are not streams), and what a client gets past the cap is a 503 it can retry.
 */

/** Descriptors kept for everything else: a quarter of the limit, at least this many. */
export const MIN_DESCRIPTOR_RESERVE = 128;
/** The default cap when the limit leaves room for more: each stream also costs memory and a timer. */
export const DEFAULT_MAX_STREAMS_CEILING = 10_000;
/** The limit assumed when it cannot be read (neither /proc nor the launcher said): macOS's default. */
export const ASSUMED_OPEN_FILES_LIMIT = 256;

export interface StreamLimitSettings {
  /** `CAIRN_MAX_STREAMS` / `server.maxStreams`. */
  max?: number;
  /** `CAIRN_MAX_STREAMS_PER_CLIENT` / `server.maxStreamsPerClient`. */
  maxPerClient?: number;
}

export interface StreamLimits {
  maxStreams: number;
  maxStreamsPerClient: number;
  /** The open-file limit the caps were derived from (assumed when unknown). */
  openFilesLimit: number;
  /** The most streams that limit allows, its reserve kept. */
  descriptorCap: number;
  /** A configured cap above descriptorCap, lowered to it. */
  lowered?: { setting: 'max' | 'maxPerClient'; configured: number };
}

/**
 * The caps: the configured ones, never above what the open-file limit allows; unset, as many as
 * that limit allows (at most DEFAULT_MAX_STREAMS_CEILING) in all, and half of that per client,
 * so that one address cannot take every stream from the others.
 */
export function resolveStreamLimits(settings: StreamLimitSettings, openFilesLimit: number | undefined): StreamLimits {
  const limit = openFilesLimit ?? ASSUMED_OPEN_FILES_LIMIT;
  const reserve = Math.max(MIN_DESCRIPTOR_RESERVE, Math.ceil(limit / 4));
  const descriptorCap = Math.max(1, limit - reserve);
  const maxStreams = Math.min(settings.max ?? Math.min(descriptorCap, DEFAULT_MAX_STREAMS_CEILING), descriptorCap);
  const maxStreamsPerClient = Math.min(settings.maxPerClient ?? Math.max(1, Math.ceil(maxStreams / 2)), maxStreams);
  const lowered =
    settings.max !== undefined && settings.max > descriptorCap
      ? { setting: 'max' as const, configured: settings.max }
      : settings.maxPerClient !== undefined && settings.maxPerClient > maxStreams
        ? { setting: 'maxPerClient' as const, configured: settings.maxPerClient }
        : undefined;
  return { maxStreams, maxStreamsPerClient, openFilesLimit: limit, descriptorCap, ...(lowered ? { lowered } : {}) };
}
