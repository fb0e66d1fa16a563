import { CairnError } from './errors.js';
import { homePaths, resolveHome } from './paths.js';

/**
 * The settings that come from the environment alone: where the home is and where the server
 * listens. Kept apart from config.ts (which parses `config.yaml`) so the launcher and the CLI
 * can find the server without loading the YAML and schema libraries.
 */

export const DEFAULT_PORT = 3090;

export interface AddressSettings {
  home: string;
  paths: ReturnType<typeof homePaths>;
  /** Explicit PORT, or undefined to let the launcher choose (3090, or 3190–4089 in a worktree). */
  port: number | undefined;
  host: string;
}

/** Reads a positive integer variable; a malformed value is a configuration error naming it. */
export function positiveIntFromEnv(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new CairnError('CONFIG_INVALID', `${name} must be a positive integer, got '${raw}'`);
  }
  return value;
}

export function loadAddressSettings(env: NodeJS.ProcessEnv = process.env): AddressSettings {
  const home = resolveHome(env);
  return {
    home,
    paths: homePaths(home),
    port: positiveIntFromEnv('PORT', env.PORT),
    host: env.HOST?.trim() || '127.0.0.1',
  };
}
