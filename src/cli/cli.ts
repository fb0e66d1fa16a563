import { readFileSync } from 'node:fs';
import { CairnError } from '../shared/errors.js';
import { packagePath } from '../shared/package-root.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from '../terminal/cli-error.js';
import type { Command } from './commands/command.js';
import { writeLine, type CliContext } from '../terminal/context.js';

/**
 * Every subcommand, in the order `cairn --help` lists them. Each is imported only when it runs:
 * `cairn serve` stays resident for the server's whole life, and loading the HTTP client and
 * workflow schemas it never uses would cost it ~15 MB.
 */
const registry: readonly { name: string; load: () => Promise<Command> }[] = [
  { name: 'serve', load: async () => (await import('./commands/serve.js')).serveCommand },
  { name: 'workflow run', load: async () => (await import('./commands/workflow-run.js')).workflowRunCommand },
  { name: 'workflow list', load: async () => (await import('./commands/workflow.js')).workflowListCommand },
  { name: 'workflow get', load: async () => (await import('./commands/workflow.js')).workflowGetCommand },
  { name: 'workflow validate', load: async () => (await import('./commands/workflow.js')).workflowValidateCommand },
  { name: 'codebase add', load: async () => (await import('./commands/codebase.js')).codebaseAddCommand },
  { name: 'codebase list', load: async () => (await import('./commands/codebase.js')).codebaseListCommand },
  { name: 'codebase allow-env', load: async () => (await import('./commands/codebase.js')).codebaseAllowEnvCommand },
  { name: 'codebase remove', load: async () => (await import('./commands/codebase.js')).codebaseRemoveCommand },
  { name: 'run list', load: async () => (await import('./commands/run.js')).runListCommand },
  { name: 'run get', load: async () => (await import('./commands/run.js')).runGetCommand },
  { name: 'run follow', load: async () => (await import('./commands/run-follow.js')).runFollowCommand },
  { name: 'run logs', load: async () => (await import('./commands/run-logs.js')).runLogsCommand },
  { name: 'run cancel', load: async () => (await import('./commands/run.js')).runCancelCommand },
  { name: 'run resume', load: async () => (await import('./commands/run-operations.js')).runResumeCommand },
  { name: 'run abandon', load: async () => (await import('./commands/run-operations.js')).runAbandonCommand },
  { name: 'run delete', load: async () => (await import('./commands/run-operations.js')).runDeleteCommand },
  { name: 'run artifacts', load: async () => (await import('./commands/run-artifacts.js')).runArtifactsCommand },
  { name: 'run retry-items', load: async () => (await import('./commands/run-retry-items.js')).runRetryItemsCommand },
  { name: 'run approve', load: async () => (await import('./commands/run-gate.js')).runApproveCommand },
  { name: 'run reject', load: async () => (await import('./commands/run-gate.js')).runRejectCommand },
  { name: 'chat', load: async () => (await import('./commands/chat.js')).chatCommand },
  { name: 'schedule list', load: async () => (await import('./commands/schedule.js')).scheduleListCommand },
  { name: 'schedule add', load: async () => (await import('./commands/schedule.js')).scheduleAddCommand },
  { name: 'schedule pause', load: async () => (await import('./commands/schedule.js')).schedulePauseCommand },
  { name: 'schedule resume', load: async () => (await import('./commands/schedule.js')).scheduleResumeCommand },
  { name: 'schedule run-now', load: async () => (await import('./commands/schedule.js')).scheduleRunNowCommand },
  { name: 'schedule remove', load: async () => (await import('./commands/schedule.js')).scheduleRemoveCommand },
  { name: 'hooks list', load: async () => (await import('./commands/hooks.js')).hooksListCommand },
  { name: 'hooks add', load: async () => (await import('./commands/hooks.js')).hooksAddCommand },
  { name: 'hooks remove', load: async () => (await import('./commands/hooks.js')).hooksRemoveCommand },
  { name: 'hooks github-token', load: async () => (await import('./commands/hooks.js')).hooksGithubTokenCommand },
  { name: 'worktree list', load: async () => (await import('./commands/worktree.js')).worktreeListCommand },
  { name: 'worktree remove', load: async () => (await import('./commands/worktree.js')).worktreeRemoveCommand },
  { name: 'config get', load: async () => (await import('./commands/config.js')).configGetCommand },
  { name: 'config set', load: async () => (await import('./commands/config.js')).configSetCommand },
  { name: 'config unset', load: async () => (await import('./commands/config.js')).configUnsetCommand },
  { name: 'auth list', load: async () => (await import('./commands/auth.js')).authListCommand },
  { name: 'auth add', load: async () => (await import('./commands/auth.js')).authAddCommand },
  { name: 'auth remove', load: async () => (await import('./commands/auth.js')).authRemoveCommand },
  { name: 'auth login', load: async () => (await import('./commands/auth.js')).authLoginCommand },
  { name: 'stress', load: async () => (await import('./commands/stress.js')).stressCommand },
  { name: 'migrate', load: async () => (await import('./commands/migrate.js')).migrateCommand },
  { name: 'doctor', load: async () => (await import('./commands/doctor.js')).doctorCommand },
];

/** All commands, loaded (for help texts). */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(registry.map((entry) => entry.load()));
}

const groups = [...new Set(registry.map((c) => c.name.split(' ')[0]))];

function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  cairn ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: cairn <command> [options]

Cairn drives AI coding assistants through YAML workflows. \`cairn serve\` starts the server; the
other commands talk to it.

Commands:
${lines.join('\n')}

Run \`cairn <command> --help\` for a command's options, \`cairn --version\` (or -V) for the
version. Exit status: 0 on success, 1 when the command failed (or the run failed), 2 on a usage
error, 3 when \`cairn workflow run\` or \`cairn run follow\` left the run paused (stdin not a
terminal; \`run logs --follow\` too), 130 when interrupted.`;
}

function groupHelp(commands: readonly Command[], group: string): string {
  const members = commands.filter((c) => c.name.startsWith(`${group} `));
  const width = Math.max(...members.map((c) => c.name.length));
  return `Usage: cairn ${group} <${members.map((c) => c.name.split(' ')[1]).join('|')}> [options]

Commands:
${members.map((c) => `  cairn ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`cairn ${group} <command> --help\` for a command's options.`;
}

/** Finds the command the arguments name; returns the rest of the arguments as its own. */
async function findCommand(argv: readonly string[]): Promise<{ command: Command; rest: readonly string[] } | undefined> {
  for (const entry of registry) {
    const words = entry.name.split(' ');
    if (words.every((word, i) => argv[i] === word)) return { command: await entry.load(), rest: argv.slice(words.length) };
  }
  return undefined;
}

/** `cairn --version`: the version in the package's package.json. */
function readVersion(): string {
  const raw = readFileSync(packagePath('package.json'), 'utf8');
  return String((JSON.parse(raw) as { version?: unknown }).version);
}

function report(ctx: CliContext, err: unknown): number {
  if (err instanceof CliError) {
    writeLine(ctx.stderr, `cairn: ${err.message}`);
    return err.exitCode;
  }
  if (err instanceof CairnError) {
    writeLine(ctx.stderr, `cairn: ${err.message}`);
    return EXIT_FAILURE;
  }
  writeLine(ctx.stderr, `cairn: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return EXIT_FAILURE;
}

/** Runs the `cairn` command line; resolves with the process exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    writeLine(first === undefined ? ctx.stderr : ctx.stdout, overview(await loadCommands()));
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === '--version' || first === '-V') {
    writeLine(ctx.stdout, `cairn ${readVersion()}`);
    return 0;
  }
  const found = await findCommand(argv);
  if (!found) {
    if (groups.includes(first)) {
      const isHelp = second === '--help' || second === '-h' || second === undefined;
      if (!isHelp) writeLine(ctx.stderr, `cairn: unknown command '${first} ${second}'.`);
      writeLine(isHelp && second !== undefined ? ctx.stdout : ctx.stderr, groupHelp(await loadCommands(), first));
      return isHelp && second !== undefined ? 0 : EXIT_USAGE;
    }
    writeLine(ctx.stderr, `cairn: unknown command '${first}'. Run \`cairn --help\` for the list of commands.`);
    return EXIT_USAGE;
  }
  try {
    return await found.command.run(found.rest, ctx);
  } catch (err) {
    return report(ctx, err);
  }
}
