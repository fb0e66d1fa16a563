import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExecRuntime } from './exec-task.js';
import { findExecutable } from '../../spawn/find-executable.js';

/** The executable each runtime needs: bash for `sh` (as upstream), bun, uv. */
const executableByRuntime: Record<ExecRuntime, string> = { sh: 'bash', bun: 'bun', uv: 'uv' };

export interface ExecCommand {
  file: string;
  args: string[];
}

export type ExecCommandResult = { ok: true; command: ExecCommand } | { ok: false; executable: string };

/** What `buildExecCommand` needs from the task. */
export interface ExecCommandInput {
  runtime: ExecRuntime;
  script: string;
  deps: readonly string[];
  cwd: string;
  /** `block`: bun runs with `--no-env-file`, so the cwd's `.env` files stay out of the script's environment. */
  envFiles?: 'load' | 'block' | undefined;
}

/**
 * The argv for one attempt, with the runtime resolved to an absolute path on `pathEnv`, or the
 * executable's name when it is not installed (the caller fails the node at once with `config`).
 */
export function buildExecCommand(input: ExecCommandInput, pathEnv: string | undefined): ExecCommandResult {
  const executable = executableByRuntime[input.runtime];
  const file = findExecutable(executable, pathEnv);
  if (!file) return { ok: false, executable };
  return { ok: true, command: { file, args: runtimeArgs(input) } };
}

function runtimeArgs(input: ExecCommandInput): string[] {
  switch (input.runtime) {
    case 'sh':
      return ['-c', input.script];
    case 'bun': {
      const file = scriptFile(input, /\.(?:[cm]?[jt]s|[jt]sx)$/);
      const noEnvFile = input.envFiles === 'block' ? ['--no-env-file'] : [];
      return file ? [...noEnvFile, 'run', file] : [...noEnvFile, '-e', input.script];
    }
    case 'uv': {
      const withDeps = input.deps.flatMap((dep) => ['--with', dep]);
      const file = scriptFile(input, /\.py$/);
      return file ? ['run', ...withDeps, file] : ['run', ...withDeps, 'python', '-c', input.script];
    }
  }
}

/** The script as a file path (relative to the node's cwd), when it names an existing file. */
function scriptFile(input: ExecCommandInput, extension: RegExp): string | undefined {
  const script = input.script.trim();
  if (/\s/.test(script) || !extension.test(script)) return undefined;
  const path = resolve(input.cwd, script);
  return isFile(path) ? path : undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
