import { execFile } from 'node:child_process';

/** How long `<cli> --version` may take: a CLI that starts through Node can need a few seconds on a busy machine. */
export const VERSION_TIMEOUT_MS = 10_000;

export type VersionAnswer = { ok: true; version: string } | { ok: false; why: string };

/**
 * Runs `argv --version` (argv: the executable, or Node and a `.js` entry) with stdin closed and
 * the given environment; answers the first line it printed, or why it did not run.
 */
export function askVersion(argv: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = VERSION_TIMEOUT_MS): Promise<VersionAnswer> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    const child = execFile(
      file!,
      [...args, '--version'],
      { env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const firstLine = (text: string) => text.split('\n').map((l) => l.trim()).find((l) => l !== '')?.slice(0, 120);
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown; signal?: string | null };
          if (e.killed) return resolve({ ok: false, why: `\`--version\` gave no answer within ${timeoutMs / 1000} s` });
          if (typeof e.code === 'string') return resolve({ ok: false, why: `it could not be started (${e.code})` });
          const said = firstLine(stderr) ?? firstLine(stdout);
          const how = typeof e.code === 'number' ? `exited with code ${e.code}` : `was killed by ${e.signal ?? 'a signal'}`;
          return resolve({ ok: false, why: `\`--version\` ${how}${said ? `: ${said}` : ''}` });
        }
        const version = firstLine(stdout) ?? firstLine(stderr);
        resolve(version === undefined ? { ok: false, why: '`--version` printed nothing' } : { ok: true, version });
      },
    );
    child.stdin?.end();
  });
}
