import { signal } from '@preact/signals';
import { openResumingStream, type StreamState } from './resuming-stream.js';
import type { StreamFrame } from './types.js';

/**
 * The page's one live connection: `GET /api/stream/__dashboard__` (every run's events). Pages
 * subscribe to its frames instead of polling; resuming-stream.ts keeps it whole across dropped
 * connections. `epoch` counts the openings: a page reloads what it shows when it changes, which
 * covers anything written before the stream was first open.
 */

export type { StreamState };

export const streamState = signal<StreamState>('connecting');
export const epoch = signal(0);

type Listener = (frame: StreamFrame) => void;
const listeners = new Set<Listener>();
let started = false;

export function onFrame(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function startLiveStream(): void {
  if (started) return;
  started = true;
  openResumingStream<StreamFrame>('/api/stream/__dashboard__', {
    onOpen: () => epoch.value++,
    onState: (state) => (streamState.value = state),
    onFrame: (frame) => {
      for (const listener of listeners) listener(frame);
    },
  });
}
