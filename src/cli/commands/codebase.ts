import { isAbsolute, resolve } from 'node:path';
import { codebaseDeleteResponseSchema, codebaseListResponseSchema, codebaseViewSchema } from '../../wire/codebases.js';
import type { Codebase } from '../../store/schemas/codebase.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine, type CliContext } from '../../terminal/context.js';
import { formatTable } from '../../terminal/format.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

const jsonOption = `  --json             print the server's JSON response
${serverOptionsHelp}`;

/** `owner/repo` travels as one path segment (`owner%2Frepo`); the server accepts both forms. */
const codebasePath = (id: string) => `/api/codebases/${encodeURIComponent(id)}`;

/**
 * What `cairn codebase add` was given: a URL git clones (`scheme://…`, `git@host:owner/repo`),
 * else a local directory, made absolute against the current one.
 */
export function codebaseSource(given: string, cwd: string): { url: string } | { path: string } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(given) || /^[\w.-]+@[\w.-]+:/.test(given)) return { url: given };
  return { path: isAbsolute(given) ? given : resolve(cwd, given) };
}

function describeEnvScan(codebase: Codebase): string | undefined {
  const scan = codebase.env_scan;
  if (scan.status !== 'keys_found' || codebase.allow_env_keys) return undefined;
  return (
    `Its ${scan.files.join(', ')} hold secret-looking keys (${scan.keys.join(', ')}): runs keep them out of node ` +
    `environments unless you allow them with \`cairn codebase allow-env ${codebase.id}\`.`
  );
}

export const codebaseAddCommand: Command = {
  name: 'codebase add',
  summary: 'register a local repository or folder, or clone one by URL',
  help: `Usage: cairn codebase add <path-or-url> [--json] [--url <url>]

Register a codebase. A local directory (relative paths are taken from the current one) is
registered in place and never moved or deleted by Cairn; a URL (https://, ssh://, file://,
git@host:owner/repo.git) is cloned into $CAIRN_HOME/workspaces/<owner>/<repo>/source. The id is
owner/repo from the repository's remote URL, or local/<folder>@<hash> without a remote.

A run of a workflow started from the codebase's folder (\`cairn workflow run <name>\` there, or
--codebase <id> from anywhere) works in a git worktree of its own, on a branch of its own.

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [given] = expectPositionals(this.name, positionals, ['path-or-url']) as [string];
    const { raw, body } = await clientFor(ctx, values.url).request('POST', '/api/codebases', codebaseViewSchema, {
      body: codebaseSource(given, ctx.cwd),
    });
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Codebase ${body.id} (${body.kind}) at ${body.default_cwd}.`);
    const warning = describeEnvScan(body);
    if (warning) writeLine(ctx.stdout, warning);
    return 0;
  },
};

export const codebaseListCommand: Command = {
  name: 'codebase list',
  summary: 'list the registered codebases',
  help: `Usage: cairn codebase list [--json] [--url <url>]

List the registered codebases: id, kind (repo or folder) and checkout.

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const { raw, body } = await clientFor(ctx, values.url).request('GET', '/api/codebases', codebaseListResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.codebases.length === 0) {
      writeLine(ctx.stdout, 'No codebases yet. Register one with `cairn codebase add <path-or-url>`.');
      return 0;
    }
    const rows = body.codebases.map((c) => [c.id, c.kind, c.default_cwd]);
    for (const line of formatTable(['ID', 'KIND', 'CHECKOUT'], rows)) writeLine(ctx.stdout, line);
    return 0;
  },
};

export const codebaseRemoveCommand: Command = {
  name: 'codebase remove',
  summary: 'unregister a codebase and remove its worktrees',
  help: `Usage: cairn codebase remove <id> [--json] [--url <url>]

Unregister a codebase: its run worktrees are removed (git worktree remove, then prune; their
branches stay in the repository), and a clone Cairn made is deleted. A local directory you
registered is never deleted. Refused while one of its runs is working.

Options:
${jsonOption}`,
  async run(argv, ctx: CliContext) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [id] = expectPositionals(this.name, positionals, ['id']) as [string];
    const { raw, body } = await clientFor(ctx, values.url).request('DELETE', codebasePath(id), codebaseDeleteResponseSchema);
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, body.removedPath ? `Removed codebase ${body.id} and its clone at ${body.removedPath}.` : `Removed codebase ${body.id}.`);
    return 0;
  },
};

export const codebaseAllowEnvCommand: Command = {
  name: 'codebase allow-env',
  summary: "allow (or, with --revoke, block) a codebase's secret-looking .env keys in its runs",
  help: `Usage: cairn codebase allow-env <id> [--revoke] [--json] [--url <url>]

Runtimes that load a working folder's .env files on their own (bun) are told not to when the
codebase's .env* files hold secret-looking keys, until you allow them here. The grant (or the
revoke) is logged by the server with the keys it was decided on (names only).

Options:
  --revoke           withdraw the consent: block them again
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { revoke: { type: 'boolean' }, json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [id] = expectPositionals(this.name, positionals, ['id']) as [string];
    const allow = values.revoke !== true;
    const { raw, body } = await clientFor(ctx, values.url).request('PATCH', codebasePath(id), codebaseViewSchema, {
      body: { allowEnvKeys: allow },
    });
    if (values.json) return printJson(ctx, raw);
    const keys = body.env_scan.keys.length ? body.env_scan.keys.join(', ') : 'none found now';
    writeLine(ctx.stdout, `${allow ? 'Allowed' : 'Blocked'} the .env keys of ${body.id} in its runs (secret-looking keys: ${keys}).`);
    return 0;
  },
};
