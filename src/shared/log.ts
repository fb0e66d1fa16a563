import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * The one root logger. Secrets never reach the journal: credential-shaped keys and child
 * process environments are redacted wherever they appear.
 */
export function createLogger(opts: { name: string; level?: string; destination?: pino.DestinationStream }): Logger {
  return pino(
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
    opts.destination,
  );
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
