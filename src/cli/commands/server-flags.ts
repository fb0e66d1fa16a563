import { createApiClient, type ApiClient } from '../api-client.js';
import { CliError, usageError } from '../../terminal/cli-error.js';
import type { CliContext } from '../../terminal/context.js';
import { resolveServerAddress } from '../server-address.js';

/** The `--url` option every server command accepts. */
export const urlOption = { url: { type: 'string' } } as const;

/** The `--user` option of the commands that act for one user (`cairn auth`, `cairn config --user`). */
export const userOption = { user: { type: 'string' } } as const;

/** Longest user id the server takes (its `X-Service-User` check). */
const MAX_USER_ID_LENGTH = 256;

/**
 * The user the requests act for: `--user`, else `CAIRN_USER`, trimmed; undefined for none. A
 * value the header cannot carry (a control character, too long) is a usage error naming it.
 */
export function userFor(ctx: CliContext, flag: string | undefined, command?: string): string | undefined {
  const given = flag ?? ctx.env.CAIRN_USER;
  const from = flag !== undefined ? '--user' : 'CAIRN_USER';
  const user = given?.trim() ?? '';
  const refuse = (message: string) => (command ? usageError(message, command) : new CliError('USAGE', message));
  if (user === '') {
    if (flag !== undefined) throw refuse('--user is blank: give the user id the server keeps your settings and credentials under.');
    return undefined;
  }
  if (/[^\x20-\x7e]/.test(user)) throw refuse(`${from} holds a character other than printable ASCII, which a request header cannot carry.`);
  if (user.length > MAX_USER_ID_LENGTH) throw refuse(`${from} is longer than ${MAX_USER_ID_LENGTH} characters.`);
  return user;
}

/**
 * A client for the server the user means: `--url`, `CAIRN_URL`, server.json, then the default.
 * With `CAIRN_USER` set (or `user` given) every request names that user (`X-Service-User`), so
 * runs started from the CLI use that user's credentials and model preferences.
 */
export function clientFor(ctx: CliContext, url: string | undefined, user?: string): ApiClient {
  const who = user ?? userFor(ctx, undefined);
  return createApiClient(resolveServerAddress({ flag: url, env: ctx.env }), { user: who });
}
