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
      // A child logger already writes its bindings (a run's logger has runId): a call that passes
      // the same key again would print it twice on the line, so the repeat is dropped.
      hooks: {
        logMethod(args, method) {
          const [first, ...rest] = args as unknown[];
          if (first === null || typeof first !== 'object' || first instanceof Error) return method.apply(this, args);
          const bound = this.bindings();
          const keys = Object.keys(first).filter((key) => key in bound && bound[key] === (first as Record<string, unknown>)[key]);
          if (keys.length === 0) return method.apply(this, args);
          const fields = { ...(first as Record<string, unknown>) };
          for (const key of keys) delete fields[key];
          return method.apply(this, [fields, ...rest] as Parameters<typeof method>);
        },
      },
    },
    opts.destination,
  );
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
