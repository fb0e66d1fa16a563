import { CairnError } from './errors.js';
import { homePaths, resolveHome } from './paths.js';

/**
 * The settings that come from the environment alone: where the home is and where the server
 * listens. Kept apart from config.ts (which parses `config.yaml`) so the launcher and the CLI
 * can find the server without loading the YAML and schema libraries.
 */

export const DEFAULT_PORT = 3090;
/** The ports a server can listen on. */
export const PORT_RANGE = { first: 1, last: 65535 } as const;

/** `raw` as a port number (a whole number in PORT_RANGE), or undefined when it is not one. */
export function toPortNumber(raw: string): number | undefined {
  const value = Number(raw);
  return /^\s*\d+\s*$/.test(raw) && value >= PORT_RANGE.first && value <= PORT_RANGE.last ? value : undefined;
}

/** What a setting named `name` (`PORT`, `--port`) must be, for an error about its value `raw`. */
export function portSettingText(name: string, raw: string): string {
  return `${name} '${raw}' is not a port number: it must be a whole number from ${PORT_RANGE.first} to ${PORT_RANGE.last}`;
}

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

/** `PORT`, when set; a value that is not a port number is a configuration error naming it. */
function portFromEnv(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const port = toPortNumber(raw);
  if (port === undefined) throw new CairnError('CONFIG_INVALID', portSettingText('PORT', raw));
  return port;
}

export function loadAddressSettings(env: NodeJS.ProcessEnv = process.env): AddressSettings {
  const home = resolveHome(env);
  return {
    home,
    paths: homePaths(home),
    port: portFromEnv(env.PORT),
    host: env.HOST?.trim() || '127.0.0.1',
  };
}
