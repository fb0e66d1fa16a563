import type { CliContext, OutputStream } from '../../src/terminal/context.js';
import { runCli } from '../../src/cli/cli.js';

export interface CapturedStream extends OutputStream {
  text: string;
}

export function capture(): CapturedStream {
  const stream: CapturedStream = {
    text: '',
    isTTY: false,
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process with captured output, the given environment and directory. */
export async function runCliInProcess(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdinIsTTY?: boolean; stdout?: CapturedStream } = {},
): Promise<CliResult> {
  const stdout = opts.stdout ?? capture();
  const stderr = capture();
  const ctx: CliContext = {
    stdout,
    stderr,
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    ...(opts.stdinIsTTY !== undefined ? { stdinIsTTY: opts.stdinIsTTY } : {}),
    onInterrupt: () => () => undefined,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
