import { shutdownMessageSchema } from '../../shared/process-messages.js';

/**
 * Calls `handler` once when the process is asked to stop: a `{ type: 'shutdown', drain }`
 * message from the launcher over IPC, or SIGTERM/SIGINT (no drain). A second request while
 * draining upgrades to an immediate stop by calling the handler again with `drain: false`.
 */
export function onShutdownRequest(handler: (opts: { drain: boolean }) => Promise<void>): void {
  let requested: 'drain' | 'now' | undefined;
  const request = (drain: boolean) => {
    if (requested === 'now' || (requested === 'drain' && drain)) return;
    requested = drain ? 'drain' : 'now';
    void handler({ drain });
  };
  process.on('message', (message: unknown) => {
    const parsed = shutdownMessageSchema.safeParse(message);
    if (parsed.success) request(parsed.data.drain);
  });
  process.on('SIGTERM', () => request(false));
  process.on('SIGINT', () => request(false));
  // The launcher going away (IPC closed) means nobody will ask politely.
  process.on('disconnect', () => request(false));
}
