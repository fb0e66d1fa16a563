import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execAttemptTaskSchema, type ExecRuntime } from '../../../../src/worker/nodes/exec/exec-task.js';
import { runExec } from '../../../../src/worker/nodes/exec/exec.js';

// Stand-ins for bun and uv that print the arguments they were given, one per line.
let bin: string;
let project: string;
beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'cairn-runtimes-'));
  project = await mkdtemp(join(tmpdir(), 'cairn-project-'));
  for (const name of ['bun', 'uv']) {
    await writeFile(join(bin, name), `#!/bin/sh\necho ${name}; for a in "$@"; do echo "[$a]"; done\n`);
    await chmod(join(bin, name), 0o755);
  }
  await writeFile(join(project, 'build.ts'), 'console.log(1)\n');
  await writeFile(join(project, 'report.py'), 'print(1)\n');
});
afterAll(async () => {
  await rm(bin, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

function scriptTask(runtime: ExecRuntime, script: string, deps: string[] = []) {
  return execAttemptTaskSchema.parse({
    kind: 'exec',
    store: { backend: 'sqlite', path: 'unused' },
    runId: 'run',
    conversationId: 'conv',
    path: 's',
    nodeId: 's',
    runtime,
    legacyType: 'script',
    invocation: { id: randomUUID(), startedAt: new Date().toISOString(), loopPath: [] },
    attempt: { id: randomUUID(), number: 1 },
    script,
    deps,
    cwd: project,
    env: { PATH: `${bin}:${process.env.PATH}` },
    timeoutMs: 60_000,
    killGraceMs: 100,
    outputSpillDir: 'unused',
  });
}

describe('script runtimes', () => {
  it('runs inline bun code with bun -e', async () => {
    const outcome = await runExec(scriptTask('bun', 'console.log("hi there")'));
    expect(outcome.output).toBe('bun\n[-e]\n[console.log("hi there")]');
  });

  it('runs a bun script file of the project with bun run', async () => {
    const outcome = await runExec(scriptTask('bun', 'build.ts'));
    expect(outcome.output).toBe(`bun\n[run]\n[${join(project, 'build.ts')}]`);
  });

  it('runs inline python with uv run, one --with per dependency', async () => {
    const outcome = await runExec(scriptTask('uv', 'import httpx; print(1)', ['httpx', 'rich>=13']));
    expect(outcome.output).toBe('uv\n[run]\n[--with]\n[httpx]\n[--with]\n[rich>=13]\n[python]\n[-c]\n[import httpx; print(1)]');
  });

  it('runs a python file of the project with uv run', async () => {
    const outcome = await runExec(scriptTask('uv', 'report.py', ['rich']));
    expect(outcome.output).toBe(`uv\n[run]\n[--with]\n[rich]\n[${join(project, 'report.py')}]`);
  });
});
