import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runCli } from './cli-process.js';

/**
 * A machine for `cairn doctor` tests: a fresh CAIRN_HOME, a user home of its own (no real
 * ~/.claude login leaks in), and a PATH that holds only the fake CLIs the test makes (small
 * scripts printing a version), never node_modules/.bin. The CLIs Cairn finds as npm packages next
 * to itself (codex, gemini, ...) are pointed at fakes through their *_BIN_PATH, as a user may.
 */

export const packagedClis = ['codex', 'opencode', 'pi', 'copilot', 'gemini'] as const;

export interface DoctorBench {
  home: TempHome;
  /** The folder on PATH. */
  bin: string;
  /** $HOME of the user running the doctor. */
  userHome: string;
  /** Writes an executable `bin/<name>` that prints `version` for `--version` (or runs `script`). */
  fake(name: string, version: string, script?: string): Promise<string>;
  /** The environment: only these variables, plus `extra`. */
  env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** The *_BIN_PATH of every packaged CLI, pointed at a fake of it made now. */
  packagedFakes(): Promise<NodeJS.ProcessEnv>;
  doctor(argv?: string[], extra?: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export async function makeDoctorBench(): Promise<DoctorBench> {
  const home = await makeTempHome();
  const dir = await mkdtemp(join(tmpdir(), 'cairn-doctor-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  const bin = join(dir, 'bin');
  const userHome = join(dir, 'user');
  await mkdir(bin);
  await mkdir(userHome);
  const bench: DoctorBench = {
    home,
    bin,
    userHome,
    async fake(name, version, script) {
      const file = join(bin, name);
      await writeFile(file, script ?? `#!/bin/sh\necho "${version}"\n`);
      await chmod(file, 0o755);
      return file;
    },
    env(extra = {}) {
      return { PATH: bin, HOME: userHome, CAIRN_HOME: home.home, NO_COLOR: '1', ...extra };
    },
    async packagedFakes() {
      const env: NodeJS.ProcessEnv = {};
      for (const cli of packagedClis) env[`${cli.toUpperCase()}_BIN_PATH`] = await bench.fake(cli, `${cli} 9.9.9-fake`);
      return env;
    },
    doctor(argv = [], extra = {}) {
      return runCli(['doctor', ...argv], { env: bench.env(extra), cwd: home.home });
    },
  };
  return bench;
}

/** Makes `node` and `sh` reachable on the bench's PATH, for a command line run through `sh`. */
export async function linkShellTools(bench: DoctorBench): Promise<void> {
  await symlink(process.execPath, join(bench.bin, 'node'));
  await symlink('/bin/sh', join(bench.bin, 'sh'));
}

export interface DoctorLine {
  status: 'ok' | 'warn' | 'FAILED';
  name: string;
  /** What follows the name: the detail, and `. Next: ...` when not ok. */
  text: string;
}

/** The check lines of the doctor's output (the summary line left out). */
export function doctorLines(stdout: string): DoctorLine[] {
  return stdout
    .split('\n')
    .map((line) => /^(ok|warn|FAILED) +(\S+(?: \S+)*?) {2,}(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ status: m[1] as DoctorLine['status'], name: m[2]!, text: m[3]! }));
}

/** The line of one check, failing the test with the whole output when it is missing. */
export function lineOf(stdout: string, name: string): DoctorLine {
  const line = doctorLines(stdout).find((l) => l.name === name);
  if (!line) throw new Error(`no '${name}' line in:\n${stdout}`);
  return line;
}
