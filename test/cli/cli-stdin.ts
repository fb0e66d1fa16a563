import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

export interface BytesResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs the built `cairn` with `input` piped to its stdin (a key for `cairn auth add --stdin`)
 * and its stdout kept as bytes (an artifact printed as it is). `onStdout` sees the output as it
 * comes, and may write more to stdin (`cairn auth login`, which prints a URL, then reads a code).
 */
export function runCliWithStdin(
  argv: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string; onStdout?: (text: string, write: (more: string) => void) => void },
): Promise<BytesResult> {
  const child = spawn(process.execPath, [bin, ...argv], { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out.push(d);
    opts.onStdout?.(Buffer.concat(out).toString(), (more) => child.stdin.end(more));
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.on('error', () => undefined);
  if (opts.input !== undefined) child.stdin.end(opts.input);
  else if (!opts.onStdout) child.stdin.end();
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err })));
}
