import { homePaths, resolveHome } from '../shared/paths.js';
import { DEFAULT_PORT, portSettingText, toPortNumber } from '../shared/env-settings.js';
import { CliError } from '../terminal/cli-error.js';
import { readLiveServerFile } from '../launcher/run-dir.js';

export type ServerAddressSource = 'flag' | 'env' | 'server-file' | 'default';

export interface ServerAddress {
  /** Base URL without a trailing slash. */
  url: string;
  /** Where the address came from, so an error can say which setting to fix. */
  source: ServerAddressSource;
}

function normalise(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError('USAGE', `${what} '${raw}' is not a URL (for example http://127.0.0.1:3090).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError('USAGE', `${what} '${raw}' must start with http:// or https://.`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * Where the CLI finds the server: `--url`, else `CAIRN_URL`, else the `server.json` of a live
 * launcher under `$CAIRN_HOME/run/`, else `http://127.0.0.1:${PORT ?? 3090}`.
 */
export function resolveServerAddress(opts: { flag?: string | undefined; env: NodeJS.ProcessEnv }): ServerAddress {
  if (opts.flag) return { url: normalise(opts.flag, '--url'), source: 'flag' };
  const fromEnv = opts.env.CAIRN_URL?.trim();
  if (fromEnv) return { url: normalise(fromEnv, 'CAIRN_URL'), source: 'env' };
  const running = readLiveServerFile(homePaths(resolveHome(opts.env)));
  if (running) return { url: normalise(running.url, 'server.json url'), source: 'server-file' };
  const given = opts.env.PORT;
  if (given === undefined || given.trim() === '') return { url: `http://127.0.0.1:${DEFAULT_PORT}`, source: 'default' };
  const port = toPortNumber(given);
  if (port === undefined) {
    throw new CliError('USAGE', `${portSettingText('PORT', given)}. Set it to the port of the Cairn server, or unset it (default ${DEFAULT_PORT}).`);
  }
  return { url: `http://127.0.0.1:${port}`, source: 'default' };
}
