import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { substituteShell, type SubstitutionContext, type SubstitutionResult } from '../../src/workflow/substitution/substitute.js';

/**
 * Substitutes `bash` bodies as a node would (`substituteShell`) and runs them in real bash
 * (`bash -c <body>`, with only PATH and the substitution's environment), each in a scratch folder
 * where a value read as code would leave a file (`touch pwned`, `id > f`). Many bodies run from
 * one driver script, so a matrix of contexts and values costs one Node spawn.
 */

export interface BashJob {
  script: string;
  env: Record<string, string>;
}

export interface BashRun {
  stdout: string;
  status: number;
  /** Files the body left in its folder: none, unless a value ran. */
  files: string[];
}

/** Every reference form resolves to `value`: `$ARGUMENTS`, `$USER_MESSAGE`, `$m.output`, `$INPUTS.n`. */
export function valueContext(value: string): SubstitutionContext {
  return {
    variables: { ARGUMENTS: value, USER_MESSAGE: value, WORKFLOW_ID: 'run-1' },
    inputs: { n: value },
    declaredInputs: ['n'],
    outputs: (id) => (id === 'm' ? { status: 'completed', output: value } : undefined),
  };
}

export function substitute(body: string, value: string): SubstitutionResult {
  return substituteShell(body, valueContext(value), 'sh');
}

/** The body as bash reads it when the value is in the shell variable V (`%REF%` → `${V}`). */
export function nativeJob(body: string, value: string): BashJob {
  return { script: body.replaceAll('%REF%', '${V}'), env: { V: value, ARGUMENTS: value, USER_MESSAGE: value, INPUTS_N: value } };
}

/** `$'…'` with every byte escaped: any value, written as bash source that reads as exactly it. */
function ansiQuoted(value: string): string {
  return `$'${[...Buffer.from(value)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}'`;
}

/** Runs each job in its own folder and environment, all from one bash driver. */
export function runBashJobs(jobs: readonly BashJob[]): BashRun[] {
  if (jobs.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bash-'));
  try {
    const lines = jobs.map((job, i) => {
      mkdirSync(join(dir, `w${i}`));
      writeFileSync(join(dir, `s${i}`), job.script);
      const env = Object.entries(job.env).map(([k, v]) => `${k}=${ansiQuoted(v)}`).join(' ');
      return (
        `( cd "$D/w${i}" && s="$(cat "$D/s${i}"; printf x)" && exec env -i PATH="$PATH" ${env} timeout 10 bash -c "\${s%x}" ) ` +
        `>"$D/o${i}" 2>/dev/null </dev/null; echo $? >"$D/c${i}"`
      );
    });
    writeFileSync(join(dir, 'driver.sh'), lines.join('\n'));
    const done = spawnSync('bash', [join(dir, 'driver.sh')], { env: { PATH: process.env.PATH, D: dir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    if (done.status !== 0) throw new Error(`driver failed: ${done.stderr}`);
    return jobs.map((_, i) => ({
      stdout: readFileSync(join(dir, `o${i}`), 'utf8'),
      status: Number(readFileSync(join(dir, `c${i}`), 'utf8').trim()),
      files: readdirSync(join(dir, `w${i}`)),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
