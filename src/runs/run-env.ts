import { z } from 'zod';
import { CairnError } from '../shared/errors.js';
import type { InstallKey } from '../shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../shared/secrets/sealed.js';

/**
 * A run's own environment (`config.env` of its request): sealed with the install key when the
 * run is queued (`metadata.sealed_env`), opened by the supervisor each time it builds the run's
 * scheduler (start, resume, take-over), so a resume reuses the very values of the request.
 *
 * Precedence for a node's process, lowest first: the server's own environment, then the run's
 * `config.env`, then what Cairn sets for the node (its variables, `INPUTS_*`, `CAIRN_*`, a
 * provider's key and base URL). The names Cairn sets are refused in `config.env`
 * (run-overrides.ts), so a name given there always takes effect.
 */

const contextOf = (runId: string) => `run-env:${runId}`;
const envValuesSchema = z.record(z.string(), z.string());

export function sealRunEnv(key: InstallKey, runId: string, values: Readonly<Record<string, string>>): string {
  return sealSecret(key, JSON.stringify(values), contextOf(runId));
}

/** The run's environment, or `{}` when it has none. Throws SECRET_UNREADABLE when it cannot be opened. */
export function openRunEnv(key: () => InstallKey, runId: string, sealed: string | undefined): Record<string, string> {
  if (sealed === undefined) return {};
  const text = openSecret(key(), sealed, contextOf(runId));
  const parsed = envValuesSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new CairnError('SECRET_UNREADABLE', 'The run’s sealed environment opened but is not an object of strings');
  return parsed.data;
}
