import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

/** Fails early, with what to do, when the process tests run without a build. */
export function assertBuilt(): void {
  for (const entry of ['cli/main.js', 'api/main.js', 'supervisor/process/main.js']) {
    const path = fileURLToPath(new URL(`../../dist/${entry}`, import.meta.url));
    if (!existsSync(path)) throw new Error(`dist/${entry} is missing: run \`npm run build\` (or \`npm test\`, which builds first)`);
  }
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Runs `node bin/cairn.js <argv>` as a real child process with the given environment. */
export function startCli(argv: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): CliProcess {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [bin, ...argv], { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to completion. */
export async function runCli(argv: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }) {
  const cli = startCli(argv, opts);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/**
 * The environment a user's shell gives the CLI for the home `cairnHome`: no PORT or CAIRN_URL of
 * the test run, so it finds the server through $CAIRN_HOME/run/server.json, and no colour.
 */
export function userCliEnv(cairnHome: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { PORT: _port, CAIRN_URL: _url, ...env } = process.env;
  return { ...env, CAIRN_HOME: cairnHome, NO_COLOR: '1', ...extra };
}

/** Runs the CLI to completion as a user would in the home `cairnHome` (its working directory). */
export function runUserCli(cairnHome: string, argv: string[]) {
  return runCli(argv, { env: userCliEnv(cairnHome), cwd: cairnHome });
}
