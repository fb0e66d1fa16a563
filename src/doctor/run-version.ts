import { spawn } from 'node:child_process';

/** How long `<cli> --version` may take: a CLI that starts through Node can need a few seconds on a busy machine. */
export const VERSION_TIMEOUT_MS = 10_000;

export type VersionAnswer = { ok: true; version: string } | { ok: false; why: string };

const firstLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
    ?.slice(0, 120);

/**
 * Runs `argv --version` (argv: the executable, or Node and a `.js` entry) with stdin closed and
 * the given environment, as the leader of its own process group; answers the first line it
 * printed, or why it did not run. Past the timeout the whole group is killed (a wrapper script's
 * children included) and the answer does not wait for it.
 */
export function askVersion(argv: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = VERSION_TIMEOUT_MS): Promise<VersionAnswer> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (answer: VersionAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const child = spawn(file!, [...args, '--version'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d.slice(0, 64 * 1024)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d.slice(0, 64 * 1024)));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
      settle({ ok: false, why: `\`--version\` gave no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.once('error', (err: NodeJS.ErrnoException) => settle({ ok: false, why: `it could not be started (${err.code ?? err.message})` }));
    child.once('close', (code, signal) => {
      if (code === 0) {
        const version = firstLine(stdout) ?? firstLine(stderr);
        return settle(version === undefined ? { ok: false, why: '`--version` printed nothing' } : { ok: true, version });
      }
      const said = firstLine(stderr) ?? firstLine(stdout);
      const how = code !== null ? `exited with code ${code}` : `was killed by ${signal ?? 'a signal'}`;
      settle({ ok: false, why: `\`--version\` ${how}${said ? `: ${said}` : ''}` });
    });
  });
}
