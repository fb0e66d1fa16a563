import { z } from 'zod';
import { CairnError } from '../shared/errors.js';
import type { InstallKey } from '../shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../shared/secrets/sealed.js';
import { refusedEnvName } from '../store/schemas/run-env-names.js';

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

/**
 * The run's environment, or `{}` when it has none. Throws SECRET_UNREADABLE when it cannot be
 * opened, and CONFIG_INVALID when it holds a name the run request refuses today: a run queued
 * before a name was refused (or a row written by anything but the run route) must not hand it to
 * a node on start, resume or take-over. The run then fails, saying which name and why.
 */
export function openRunEnv(key: () => InstallKey, runId: string, sealed: string | undefined): Record<string, string> {
  if (sealed === undefined) return {};
  const text = openSecret(key(), sealed, contextOf(runId));
  const parsed = envValuesSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new CairnError('SECRET_UNREADABLE', 'The run’s sealed environment opened but is not an object of strings');
  for (const name of Object.keys(parsed.data)) {
    const refused = refusedEnvName(name);
    if (refused) {
      throw new CairnError(
        'CONFIG_INVALID',
        `The run’s config.env holds '${name}', which is not accepted: ${refused}. Start the run again without it`,
      );
    }
  }
  return parsed.data;
}
