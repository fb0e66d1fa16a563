import type { Run } from '../store/schemas/run.js';

/**
 * How a run row is shown over HTTP. The row is returned as stored except for values a user may
 * have put secrets in: `metadata.overrides.config.env` values (inline env for one run) are kept
 * for the engine but never leave the server.
 */
export const REDACTED = '[redacted]';

/** Where the run route keeps a request's tiers, aliases and inline config for the engine. */
export const RUN_OVERRIDES_KEY = 'overrides';

export function toRunView(run: Run): Run {
  const overrides = run.metadata[RUN_OVERRIDES_KEY];
  if (!isObject(overrides) || !isObject(overrides.config) || !isObject(overrides.config.env)) return run;
  const env = Object.fromEntries(Object.keys(overrides.config.env).map((k) => [k, REDACTED]));
  return {
    ...run,
    metadata: {
      ...run.metadata,
      [RUN_OVERRIDES_KEY]: { ...overrides, config: { ...overrides.config, env } },
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
