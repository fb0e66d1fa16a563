import type { Run } from '../store/schemas/run.js';
import { parseRunMetadata, type RunMetadata } from '../store/schemas/run-metadata.js';

/**
 * How a run row is shown over HTTP. Its metadata is read with the one metadata schema, so a key
 * an older version stored in another shape is reported under `metadata.unreadable` instead of
 * failing the answer. Values a user may have put secrets in, `metadata.overrides.config.env`
 * (inline env for one run), are kept for the engine but never leave the server.
 */
export const REDACTED = '[redacted]';

export function toRunView(run: Run): Run {
  return { ...run, metadata: redactSecrets(parseRunMetadata(run.metadata)) };
}

function redactSecrets(metadata: RunMetadata): RunMetadata {
  const overrides = metadata.overrides;
  const env = overrides?.config?.env;
  if (!overrides?.config || !env) return metadata;
  const redacted = Object.fromEntries(Object.keys(env).map((name) => [name, REDACTED]));
  return { ...metadata, overrides: { ...overrides, config: { ...overrides.config, env: redacted } } };
}
