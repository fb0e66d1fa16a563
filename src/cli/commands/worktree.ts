import { codebaseListResponseSchema, environmentListResponseSchema } from '../../wire/codebases.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine } from '../context.js';
import { formatTable, formatTimestamp } from '../format.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

type Environment = ReturnType<typeof environmentListResponseSchema.parse>['environments'][number];

/** `owner/repo` travels as one path segment (`owner%2Frepo`); the server accepts both forms. */
const environmentsPath = (codebaseId: string) => `/api/codebases/${encodeURIComponent(codebaseId)}/environments`;

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
last changed. Worktrees are kept after their run ends; \`cairn codebase remove <id>\` removes a
codebase's worktrees (their branches stay in the repository).

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
    const ids =
      values.codebase !== undefined
        ? [values.codebase]
        : (await client.request('GET', '/api/codebases', codebaseListResponseSchema)).body.codebases.map((c) => c.id);
    const raw: unknown[] = [];
    const environments: Environment[] = [];
    for (const id of ids) {
      const page = await client.request('GET', environmentsPath(id), environmentListResponseSchema);
      raw.push(...(page.raw as { environments: unknown[] }).environments);
      environments.push(...page.body.environments);
    }
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
