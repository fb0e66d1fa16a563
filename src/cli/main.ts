import { runCli } from './cli.js';
import type { CliContext } from '../terminal/context.js';

/**
 * Output piped into a command that stops reading (`cairn run list | head -1`): the reader has
 * what it wanted, so the command ends quietly with the status it has so far, as `ls | head` does,
 * instead of dying with an EPIPE stack trace.
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

/**
 * The `cairn` executable (bin/cairn.js imports this file). Ctrl-C is handled only while a
 * command asks for it; otherwise the default applies and the process stops at once.
 */
const interruptHandlers: (() => void)[] = [];
const onSigint = () => interruptHandlers.at(-1)?.();

const context: CliContext = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdinIsTTY: process.stdin.isTTY === true,
  onInterrupt(handler) {
    interruptHandlers.push(handler);
    if (interruptHandlers.length === 1) process.on('SIGINT', onSigint);
    return () => {
      const index = interruptHandlers.lastIndexOf(handler);
      if (index !== -1) interruptHandlers.splice(index, 1);
      if (interruptHandlers.length === 0) process.off('SIGINT', onSigint);
    };
  },
};

process.exitCode = await runCli(process.argv.slice(2), context);
