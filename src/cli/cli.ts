import { CairnError } from '../shared/errors.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from './cli-error.js';
import type { Command } from './commands/command.js';
import { runCancelCommand, runGetCommand, runListCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { workflowRunCommand } from './commands/workflow-run.js';
import { workflowGetCommand, workflowListCommand, workflowValidateCommand } from './commands/workflow.js';
import { writeLine, type CliContext } from './context.js';

/** Every subcommand, in the order `cairn --help` lists them. */
export const commands: readonly Command[] = [
  serveCommand,
  workflowRunCommand,
  workflowListCommand,
  workflowGetCommand,
  workflowValidateCommand,
  runListCommand,
  runGetCommand,
  runCancelCommand,
];

const groups = [...new Set(commands.map((c) => c.name.split(' ')[0]))];

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  cairn ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: cairn <command> [options]

Cairn drives AI coding assistants through YAML workflows. \`cairn serve\` starts the server; the
other commands talk to it.

Commands:
${lines.join('\n')}

Run \`cairn <command> --help\` for a command's options. Exit status: 0 on success, 1 when the
command failed (or the run failed), 2 on a usage error, 130 when interrupted.`;
}

function groupHelp(group: string): string {
  const members = commands.filter((c) => c.name.startsWith(`${group} `));
  const width = Math.max(...members.map((c) => c.name.length));
  return `Usage: cairn ${group} <${members.map((c) => c.name.split(' ')[1]).join('|')}> [options]

Commands:
${members.map((c) => `  cairn ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`cairn ${group} <command> --help\` for a command's options.`;
}

/** Finds the command the arguments name; returns the rest of the arguments as its own. */
function findCommand(argv: readonly string[]): { command: Command; rest: readonly string[] } | undefined {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
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
    writeLine(first === undefined ? ctx.stderr : ctx.stdout, overview());
    return first === undefined ? EXIT_USAGE : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    if (groups.includes(first)) {
      const isHelp = second === '--help' || second === '-h' || second === undefined;
      if (!isHelp) writeLine(ctx.stderr, `cairn: unknown command '${first} ${second}'.`);
      writeLine(isHelp && second !== undefined ? ctx.stdout : ctx.stderr, groupHelp(first));
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
