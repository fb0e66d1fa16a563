import type { Run } from '../../store/schemas/run.js';
import { parseRunMetadata, type RunMetadata } from '../../store/schemas/run-metadata.js';

/**
 * How a run row is shown over HTTP. Its metadata is read with the one metadata schema, so a key
 * an older version stored in another shape is reported under `metadata.unreadable` instead of
 * failing the answer. Values a user may have put secrets in never leave the server: the sealed
 * `config.env` values (`metadata.sealed_env`, ciphertext) are left out, and a plain
 * `metadata.overrides.config.env` an older row may hold is shown by its names only.
 */
export const REDACTED = '[redacted]';

export function toRunView(run: Run): Run {
  return { ...run, metadata: redactSecrets(parseRunMetadata(run.metadata)) };
}

function redactSecrets(stored: RunMetadata): RunMetadata {
  const { sealed_env: _sealed, ...metadata } = stored;
  const overrides = metadata.overrides;
  const env = overrides?.config?.env;
  if (!overrides?.config || !env) return metadata;
  const redacted = Object.fromEntries(Object.keys(env).map((name) => [name, REDACTED]));
  return { ...metadata, overrides: { ...overrides, config: { ...overrides.config, env: redacted } } };
}
