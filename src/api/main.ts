import type { FastifyInstance } from 'fastify';
import { DEFAULT_PORT, loadSettings } from '../shared/config.js';
import { shutdownMessageSchema, type ChildReadyMessage } from '../shared/process-messages.js';
import { createLogger, type Logger } from '../shared/log.js';
import { openStore, storeConfigOf } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { buildServer } from './server.js';
import { sweepStaleUploads } from './run-files/upload-folders.js';

/**
 * The API process entry, forked by the launcher (`cairn serve`). Listens on PORT (the launcher
 * always passes the one it chose) and `settings.host`, tells the launcher `{ type: 'ready', port }`
 * over IPC, and on `{ type: 'shutdown' }` or SIGTERM/SIGINT closes the server (ending every SSE
 * stream) and the store, then exits 0.
 */

/** A generous bound on closing: SSE streams end at once; this only catches a stuck close. */
const SHUTDOWN_DEADLINE_MS = 5_000;

function isShutdownMessage(message: unknown): boolean {
  return shutdownMessageSchema.safeParse(message).success;
}

async function shutdown(app: FastifyInstance, store: Store, log: Logger, reason: string): Promise<number> {
  log.info({ reason }, 'api.shutdown_started');
  const deadline = setTimeout(() => {
    log.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'api.shutdown_forced');
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  const errors: unknown[] = [];
  await app.close().catch((err: unknown) => errors.push(err));
  await store.close().catch((err: unknown) => errors.push(err));
  if (errors.length) {
    log.error({ err: new AggregateError(errors, 'api shutdown had errors') }, 'api.shutdown_failed');
    return 1;
  }
  log.info('api.shutdown_completed');
  return 0;
}

async function main(): Promise<void> {
  const log = createLogger({ name: 'api' });
  const settings = loadSettings();
  settings.installKey(); // a bad TOKEN_ENCRYPTION_KEY or key file stops the process here
  // Before listening: no request of this process owns an upload yet.
  await sweepStaleUploads(settings.paths.uploads, { log }).catch((err: unknown) => log.warn({ err }, 'api.upload_sweep_failed'));
  const store = openStore(storeConfigOf(settings));
  const app = await buildServer({ store, settings, log });

  let stopping: Promise<void> | undefined;
  const stop = (reason: string) => {
    stopping ??= shutdown(app, store, log, reason).then((code) => {
      // After the launcher died the channel is already closed: disconnecting again throws ERR_IPC_DISCONNECTED.
      if (process.connected) process.disconnect();
      process.exit(code);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('message', (message) => {
    if (isShutdownMessage(message)) stop('shutdown message');
  });
  // The launcher gone (IPC closed) means nobody will ever ask us to stop: stop now.
  process.on('disconnect', () => stop('launcher disconnected'));

  await app.listen({ port: settings.port ?? DEFAULT_PORT, host: settings.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (settings.port ?? DEFAULT_PORT);
  log.info({ host: settings.host, port, home: settings.home }, 'api.listening');
  process.send?.({ type: 'ready', port } satisfies ChildReadyMessage);
}

main().catch((err: unknown) => {
  createLogger({ name: 'api' }).fatal({ err }, 'api.start_failed');
  process.exit(1);
});
