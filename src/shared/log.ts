import pino, { type Logger } from 'pino';
import { LogDestination } from './log-destination.js';

export type { Logger } from 'pino';

/** The process's stdout, shared by its loggers so that their lines keep one order. */
let stdout: LogDestination | undefined;

/**
 * The one root logger. Secrets never reach the journal: credential-shaped keys and child
 * process environments are redacted wherever they appear. Without a `destination`, lines go to
 * stdout through a LogDestination: a log write never blocks or crashes the process, and lines
 * the output could not take are counted in a `log.lines_dropped` line once it takes them again.
 */
export function createLogger(opts: { name: string; level?: string; destination?: pino.DestinationStream }): Logger {
  const destination = opts.destination ?? (stdout ??= new LogDestination(1));
  const logger = pino(
    {
      name: opts.name,
      level: opts.level ?? process.env.CAIRN_LOG_LEVEL ?? 'info',
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          '*.apiKey',
          '*.api_key',
          '*.token',
          '*.password',
          'env',
          '*.env',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
  if (destination instanceof LogDestination) {
    destination.onLinesDropped ??= (dropped) => logger.warn({ dropped }, 'log.lines_dropped');
  }
  return logger;
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
