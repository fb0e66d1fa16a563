import { CliError, EXIT_INTERRUPTED } from '../terminal/cli-error.js';
import type { InputStream, OutputStream } from '../terminal/context.js';

/** More than any API key or login code; a larger input is refused rather than sent. */
export const MAX_SECRET_BYTES = 16 * 1024;

/**
 * Everything on stdin up to its end (`cairn auth add <vendor> --stdin < key.txt`, or a password
 * manager piping it), less one trailing newline. Never from argv, where it lands in the shell's history.
 */
export async function readSecretFromStdin(stdin: InputStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.byteLength;
    if (size > MAX_SECRET_BYTES) throw new CliError('USAGE', `stdin holds more than ${MAX_SECRET_BYTES} bytes: it should hold the key alone.`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/**
 * Asks for a line on the terminal without echoing it (as `ssh` or `sudo` ask for a password):
 * raw mode, Backspace edits, Enter ends, Ctrl-C stops the command, Ctrl-D on an empty line too.
 */
export function promptHidden(stdin: InputStream, stderr: OutputStream, prompt: string): Promise<string> {
  // Echo goes off before the prompt shows: a key typed or pasted the moment the prompt appears
  // would otherwise be echoed by the terminal.
  stdin.setRawMode?.(true);
  stderr.write(prompt);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let line = '';
    const finish = (error?: CliError) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new CliError('USAGE', 'Interrupted.', EXIT_INTERRUPTED));
        if (char === '\u0004') {
          if (line === '') return finish(new CliError('USAGE', 'No input: nothing was sent.'));
          return finish();
        }
        if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
        else if (char >= ' ') line += char;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * The secret a command needs: from stdin with `--stdin`, else asked for on the terminal without
 * echo; with neither (stdin piped but no --stdin), a usage error saying which to use.
 */
export async function readSecret(
  opts: { stdin: InputStream | undefined; stderr: OutputStream; fromStdin: boolean; prompt: string; what: string },
  usage: (message: string) => CliError,
): Promise<string> {
  const { stdin } = opts;
  if (!stdin) throw usage(`No input to read ${opts.what} from.`);
  if (opts.fromStdin) return readSecretFromStdin(stdin);
  if (stdin.isTTY !== true || !stdin.setRawMode) {
    throw usage(`stdin is not a terminal, so ${opts.what} cannot be asked for: pass --stdin to read it from stdin.`);
  }
  return promptHidden(stdin, opts.stderr, opts.prompt);
}
