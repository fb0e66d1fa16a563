import { runCli } from './cli.js';
import type { CliContext } from './context.js';

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
