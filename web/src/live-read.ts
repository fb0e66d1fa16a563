import { useEffect } from 'preact/hooks';
import { epoch, onFrame } from './live-stream.js';
import type { StreamFrame } from './types.js';

export interface LiveRead<T> {
  /** The read: what the page shows. */
  load(): Promise<T>;
  /** Called with each answer while the page is still shown. */
  show(value: T): void;
  /** The error of the last read, or undefined once a read succeeds. */
  showError(message: string | undefined): void;
  /** Sees every stream frame: patches what is shown, and calls `reread()` when the frame changes what the read answers. */
  onFrame(frame: StreamFrame, reread: () => void): void;
}

/**
 * A page's live read: `load` now, again when `onFrame` asks and after every reopening of the
 * stream (`epoch`), never polling. One read at a time: a read asked for while one is on its way
 * runs once after it, so a burst of frames costs two reads, and the last answer shown is never
 * older than the last frame that asked. Read afresh when `deps` change.
 */
export function useLiveRead<T>(read: LiveRead<T>, deps: readonly unknown[]): void {
  useEffect(() => {
    let live = true;
    // This effect's own: a read still on its way for earlier deps must not swallow the first read for the new ones.
    const state = { busy: false, again: false };
    const run = async () => {
      if (state.busy) {
        state.again = true;
        return;
      }
      state.busy = true;
      try {
        do {
          state.again = false;
          const value = await read.load();
          if (!live) return;
          read.show(value);
          read.showError(undefined);
        } while (state.again && live);
      } catch (err) {
        if (live) read.showError((err as Error).message);
      } finally {
        state.busy = false;
      }
    };
    const reread = () => void run();
    reread();
    const stopFrames = onFrame((frame) => read.onFrame(frame, reread));
    let seen = epoch.peek();
    const stopEpoch = epoch.subscribe((value) => {
      if (value !== seen) {
        seen = value;
        reread();
      }
    });
    return () => {
      live = false;
      stopFrames();
      stopEpoch();
    };
  }, deps);
}
