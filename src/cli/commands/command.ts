import type { CliContext } from '../../terminal/context.js';

/** One `cairn` subcommand. */
export interface Command {
  /** The words after `cairn` that select it: `run list`. */
  name: string;
  /** One line for the command list in `cairn --help`. */
  summary: string;
  /** The full `--help` text. */
  help: string;
  /** Runs the command with the arguments after its name; resolves with the exit code. */
  run(argv: readonly string[], ctx: CliContext): Promise<number>;
}

/** The help lines shared by every command that talks to the server. */
export const serverOptionsHelp = `  --url <url>        the server's address. Default: CAIRN_URL, else the server running for
                     CAIRN_HOME (its run/server.json), else http://127.0.0.1:\${PORT:-3090}
  -h, --help         show this help`;

/** Prints a command's help; `--help` always exits 0. */
export function printHelp(ctx: CliContext, help: string): number {
  ctx.stdout.write(`${help}\n`);
  return 0;
}

/** Prints a value as the server sent it, for `--json`. */
export function printJson(ctx: CliContext, value: unknown): number {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return 0;
}
