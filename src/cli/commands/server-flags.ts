import { createApiClient, type ApiClient } from '../api-client.js';
import type { CliContext } from '../context.js';
import { resolveServerAddress } from '../server-address.js';

/** The `--url` option every server command accepts. */
export const urlOption = { url: { type: 'string' } } as const;

/** A client for the server the user means: `--url`, `CAIRN_URL`, server.json, then the default. */
export function clientFor(ctx: CliContext, url: string | undefined): ApiClient {
  return createApiClient(resolveServerAddress({ flag: url, env: ctx.env }));
}
