import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { execAttemptTaskSchema } from '../../../../src/worker/nodes/exec/exec-task.js';
import { runExec } from '../../../../src/worker/nodes/exec/exec.js';
import { STDERR_TAIL_BYTES, STDOUT_CAP_BYTES } from '../../../../src/worker/nodes/exec/output-capture.js';

function task(script: string) {
  return execAttemptTaskSchema.parse({
    kind: 'exec',
    store: { backend: 'sqlite', path: 'unused' },
    runId: 'run',
    conversationId: 'conv',
    path: 'n',
    nodeId: 'n',
    runtime: 'sh',
    legacyType: 'bash',
    invocation: { id: randomUUID(), startedAt: new Date().toISOString(), loopPath: [] },
    attempt: { id: randomUUID(), number: 1 },
    script,
    cwd: tmpdir(),
    env: {},
    timeoutMs: 60_000,
    killGraceMs: 100,
    outputSpillDir: 'unused',
  });
}

describe('exec output bounds', () => {
  it('keeps the head of stdout past the cap, drains the rest and still completes', async () => {
    const total = STDOUT_CAP_BYTES + 1_000_000;
    const outcome = await runExec(task(`head -c ${total} /dev/zero | tr '\\0' a; echo done >&2`));
    expect(outcome).toMatchObject({ status: 'completed', outputTruncated: true, outputBytes: total });
    expect(outcome.output).toHaveLength(STDOUT_CAP_BYTES);
  });

  it('puts only the tail of a long stderr in the error', async () => {
    const outcome = await runExec(task(`head -c 100000 /dev/zero | tr '\\0' e >&2; echo LAST-LINE >&2; exit 1`));
    expect(outcome.status).toBe('failed');
    expect(outcome.error!.length).toBeLessThanOrEqual('exit code 1: '.length + STDERR_TAIL_BYTES);
    expect(outcome.error).toMatch(/^exit code 1: e+LAST-LINE$/);
  });

  it('fails with a config error naming the working directory when it does not exist', async () => {
    const outcome = await runExec({ ...task('true'), cwd: '/no/such/dir' });
    expect(outcome).toMatchObject({ status: 'failed', failureKind: 'config' });
    expect(outcome.error).toContain("working directory '/no/such/dir'");
  });

  it('refuses a script with a NUL byte instead of passing a cut one on', async () => {
    const outcome = await runExec(task('echo a\0echo b'));
    expect(outcome).toMatchObject({ status: 'failed', failureKind: 'config' });
    expect(outcome.error).toMatch(/NUL byte/);
  });

  it('reports the spawn to the caller before the child ends', async () => {
    let spawned: number | undefined;
    const outcome = await runExec(task('echo $$'), {
      onSpawned: async (pid) => {
        spawned = pid;
      },
    });
    expect(spawned).toBeDefined();
    // bash -c runs as the group leader, so its own pid is the group id recorded.
    expect(outcome.output).toBe(String(spawned));
    expect(outcome.pid).toBe(spawned);
  });

  it('runs nothing of the node when its start cannot be recorded, and leaves no process behind', async () => {
    const marker = join(tmpdir(), `cairn-never-ran-${randomUUID()}`);
    let spawned: number | undefined;
    const running = runExec(task(`touch '${marker}'`), {
      onSpawned: async (pid) => {
        spawned = pid;
        throw new Error('database unavailable');
      },
    });
    await expect(running).rejects.toThrow(/database unavailable/);
    expect(isProcessGroupAlive(spawned!)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});
