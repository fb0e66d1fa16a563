import { resolve } from 'node:path';
import { codebaseListResponseSchema, environmentDeleteResponseSchema, environmentListResponseSchema } from '../../wire/codebases.js';
import type { ApiClient } from '../api-client.js';
import { usageError } from '../../terminal/cli-error.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine } from '../../terminal/context.js';
import { formatTable, formatTimestamp } from '../../terminal/format.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

type Environment = ReturnType<typeof environmentListResponseSchema.parse>['environments'][number];

/** `owner/repo` travels as one path segment (`owner%2Frepo`); the server accepts both forms. */
const environmentsPath = (codebaseId: string) => `/api/codebases/${encodeURIComponent(codebaseId)}/environments`;

/** The environments of one codebase, or of every registered one. */
async function listEnvironments(client: ApiClient, codebase: string | undefined) {
  const ids = codebase !== undefined ? [codebase] : (await client.request('GET', '/api/codebases', codebaseListResponseSchema)).body.codebases.map((c) => c.id);
  const raw: unknown[] = [];
  const environments: Environment[] = [];
  for (const id of ids) {
    const page = await client.request('GET', environmentsPath(id), environmentListResponseSchema);
    raw.push(...(page.raw as { environments: unknown[] }).environments);
    environments.push(...page.body.environments);
  }
  return { ids, raw, environments };
}

/** `in use by run <id>` while a run holds it under a live lock; else active or destroyed. */
function statusOf(env: Environment, now: number): string {
  const held = env.locked_by_run !== null && env.lock_expires_at !== null && Date.parse(env.lock_expires_at) >= now;
  return held ? `in use by run ${env.locked_by_run}` : env.status;
}

export const worktreeListCommand: Command = {
  name: 'worktree list',
  summary: 'list the worktrees runs work in, with their run, branch, path and status',
  help: `Usage: cairn worktree list [--codebase <id>] [--json] [--url <url>]

List the isolation environments of every registered codebase (or of one): the git worktree a run
made for itself (kind worktree), or the codebase checkout while a worktree.enabled: false run
holds it (kind checkout). Each line shows its codebase, the run that made it, its branch, its
path, its status (active, destroyed, or in use by run <id> while a run works in it) and when it
last changed. Worktrees are kept after their run ends: \`cairn worktree remove\` frees one, and
\`cairn codebase remove <id>\` all of a codebase's (their branches stay in the repository).

Options:
  --codebase <id>    only the worktrees of this codebase (\`cairn codebase list\` shows the ids)
  --json             print the server's JSON: { environments: [...] } over all codebases listed
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      codebase: { type: 'string' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const client = clientFor(ctx, values.url);
    const { ids, raw, environments } = await listEnvironments(client, values.codebase);
    if (values.json) return printJson(ctx, { environments: raw });
    if (environments.length === 0) {
      writeLine(
        ctx.stdout,
        ids.length === 0
          ? 'No codebases yet, so no worktrees. Register one with `cairn codebase add <path-or-url>`.'
          : 'No worktrees yet. A run on a registered codebase makes one (`cairn workflow run <name> --codebase <id>`).',
      );
      return 0;
    }
    const now = Date.now();
    const rows = environments.map((env) => [
      env.codebase_id,
      env.workflow_type === 'run' ? env.workflow_id : `${env.workflow_type} ${env.workflow_id}`,
      env.branch_name ?? '',
      env.provider,
      statusOf(env, now),
      formatTimestamp(env.updated_at),
      env.working_path,
    ]);
    for (const line of formatTable(['CODEBASE', 'RUN', 'BRANCH', 'KIND', 'STATUS', 'CHANGED', 'PATH'], rows)) writeLine(ctx.stdout, line);
    return 0;
  },
};

const MIN_RUN_PREFIX = 8;

export const worktreeRemoveCommand: Command = {
  name: 'worktree remove',
  summary: 'free a worktree no run works in: remove it from disk, keep its branch',
  help: `Usage: cairn worktree remove <path|run-id|branch> [--codebase <id>] [--json] [--url <url>]

Remove one worktree a run made (as \`cairn worktree list\` shows it), named by its path, the id of
the run that made it (or its first ${MIN_RUN_PREFIX}+ characters) or its branch: \`git worktree remove\`
takes it off the disk and Cairn forgets it; its branch stays in the repository, so its commits
are kept. Refused while a run works in it (cancel the run, or wait for it to end). A name that
matches more than one worktree is refused, listing them: add --codebase or give the path.

Options:
  --codebase <id>    look only among this codebase's worktrees
  --json             print the server's JSON answer
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      codebase: { type: 'string' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, ['path|run-id|branch']);
    const name = positionals[0]!;
    const client = clientFor(ctx, values.url);
    const { environments } = await listEnvironments(client, values.codebase);
    const path = resolve(ctx.cwd, name);
    const matches = environments.filter(
      (env) =>
        env.working_path === path ||
        env.branch_name === name ||
        (env.workflow_type === 'run' && (env.workflow_id === name || (name.length >= MIN_RUN_PREFIX && env.workflow_id.startsWith(name)))),
    );
    if (matches.length === 0) {
      throw usageError(`No worktree is named '${name}' (by path, run id or branch). \`cairn worktree list\` shows them.`, this.name);
    }
    if (matches.length > 1) {
      throw usageError(`'${name}' names ${matches.length} worktrees: ${matches.map((e) => e.working_path).join(', ')}. Give the path, or add --codebase.`, this.name);
    }
    const env = matches[0]!;
    const [owner, repo] = env.codebase_id.split('/');
    const res = await client.request(
      'DELETE',
      `/api/codebases/${encodeURIComponent(owner!)}/${encodeURIComponent(repo!)}/environments/${encodeURIComponent(env.id)}`,
      environmentDeleteResponseSchema,
    );
    if (values.json) return printJson(ctx, res.raw);
    writeLine(ctx.stdout, `Removed the worktree of ${env.codebase_id} at ${env.working_path}. ${res.body.detail}`);
    return 0;
  },
};
