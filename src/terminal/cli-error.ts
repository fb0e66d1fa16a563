/**
 * Errors the `cairn` command reports to its user. Each carries the process exit code it leads
 * to, so one place (`cli.ts`) turns any failure into a message and an exit status.
 */
export const cliErrorCodes = [
  /** Bad arguments: unknown flag, missing positional, malformed `--input`. Exit 2. */
  'USAGE',
  /** Nothing answers at the server address. */
  'SERVER_UNREACHABLE',
  /** The server answered with an error status; the message is the server's `error` text. */
  'SERVER_ERROR',
  /** `cairn serve` found another live server for the same CAIRN_HOME. */
  'SERVER_ALREADY_RUNNING',
  /** The port `cairn serve` was told (or defaulted) to use is taken. */
  'PORT_IN_USE',
  /** A child process of the launcher could not be started or failed before it was ready. */
  'LAUNCH_FAILED',
  /** `--cwd` names no directory. */
  'CWD_INVALID',
  /** A workflow file is missing or invalid. */
  'WORKFLOW_INVALID',
  /** No run id starts with the prefix given. */
  'RUN_NOT_FOUND',
  /** `cairn config get <key>`: the key is not set in the layer asked. */
  'CONFIG_KEY_UNSET',
  /** `cairn auth login`: the subscription login ended without a connection (refused, expired, interrupted). */
  'LOGIN_FAILED',
  /** `cairn migrate` refused a database in use, or a target that holds data, before copying anything. */
  'MIGRATE_REFUSED',
  /** `cairn migrate` failed while copying: its transaction was rolled back. */
  'MIGRATE_FAILED',
  /** A run id prefix matches several runs. Exit 2, like any argument that does not say enough. */
  'RUN_ID_AMBIGUOUS',
] as const;
export type CliErrorCode = (typeof cliErrorCodes)[number];

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** `cairn workflow run`: the run paused, at a gate (`cairn run approve|reject`) or on its budget (`cairn run resume --budget-usd`). */
export const EXIT_PAUSED = 3;
/** 128 + SIGINT, what shells report for a command stopped with Ctrl-C. */
export const EXIT_INTERRUPTED = 130;

/** A failure to report to the user; `exitCode` is what the process exits with. */
export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly exitCode: number = code === 'USAGE' || code === 'RUN_ID_AMBIGUOUS' ? EXIT_USAGE : EXIT_FAILURE,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = code;
  }
}

/** A usage error: the message names the argument and `cairn <command> --help` shows the rest. */
export function usageError(message: string, command: string): CliError {
  return new CliError('USAGE', `${message}\nRun \`cairn ${command} --help\` for usage.`);
}
