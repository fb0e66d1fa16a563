import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeExecHarness, type ExecHarness } from '../exec-harness.js';

let h: ExecHarness;
beforeEach(async () => {
  h = await makeExecHarness();
});
afterEach(async () => {
  await h.home.close();
});

describe('exec attempts in the worker pool', () => {
  it('uses stdout as the output with exactly one trailing newline removed', async () => {
    const [twoNewlines, crlf, none] = await Promise.all([
      h.pool.runAttempt(h.task("printf 'first\\nsecond\\n\\n'")),
      h.pool.runAttempt(h.task("printf 'windows\\r\\n'")),
      h.pool.runAttempt(h.task("printf 'bare'")),
    ]);
    expect(twoNewlines).toMatchObject({ status: 'completed', output: 'first\nsecond\n', exitCode: 0 });
    expect(crlf.output).toBe('windows');
    expect(none.output).toBe('bare');
  });

  it('fails a non-zero exit with the exit code and stderr in the error', async () => {
    const result = await h.pool.runAttempt(h.task('echo partial; echo "no such file: x.txt" >&2; exit 3'));
    expect(result).toMatchObject({
      status: 'failed',
      failureKind: 'exec_failed',
      exitCode: 3,
      error: 'exit code 3: no such file: x.txt',
    });
  });

  it('runs in the given cwd with the worker environment plus the task env', async () => {
    // Threads copy the environment when they start (with their pool): set it before that.
    process.env.CAIRN_TEST_INHERITED = 'from-worker';
    const own = await makeExecHarness();
    delete process.env.CAIRN_TEST_INHERITED;
    try {
      const result = await own.pool.runAttempt(
        own.task('echo "$PWD|$INPUTS_NAME|$CAIRN_TEST_INHERITED"', { env: { INPUTS_NAME: "it's me" } }),
      );
      expect(result.output).toBe(`${own.home.home}|it's me|from-worker`);
    } finally {
      await own.home.close();
    }
  });

  it('closes stdin, so a command waiting for input does not hang', async () => {
    const result = await h.pool.runAttempt(h.task('cat; echo after-eof'));
    expect(result).toMatchObject({ status: 'completed', output: 'after-eof' });
  });

  it('fails at once with a config error when the uv runtime is not installed', async () => {
    const emptyPath = await mkdtemp(join(h.home.home, 'no-runtimes-'));
    const task = h.task('print(1)', { runtime: 'uv', legacyType: 'script', nodeId: 'py', env: { PATH: emptyPath } });
    const result = await h.pool.runAttempt(task);
    expect(result).toMatchObject({
      status: 'failed',
      failureKind: 'config',
      retryable: false,
      error: "runtime not found: 'uv' is not installed or not on PATH (needed by node 'py')",
    });
    expect(result.pid).toBeUndefined();
    expect((await h.events('py')).map((e) => e.event_type)).toEqual(['node_started', 'node_failed']);
  });

  it('names bun the same way when it is missing', async () => {
    const emptyPath = await mkdtemp(join(h.home.home, 'no-runtimes-'));
    const task = h.task('console.log(1)', { runtime: 'bun', legacyType: 'script', nodeId: 'js', env: { PATH: emptyPath } });
    const result = await h.pool.runAttempt(task);
    expect(result.error).toBe("runtime not found: 'bun' is not installed or not on PATH (needed by node 'js')");
  });

  it('fails with a config error naming the working directory when it does not exist', async () => {
    const missing = join(h.home.home, 'no-such-dir');
    const result = await h.pool.runAttempt(h.task('true', { cwd: missing }));
    expect(result).toMatchObject({ status: 'failed', failureKind: 'config' });
    expect(result.error).toContain(missing);
  });

  it('throws for a malformed task instead of running it', async () => {
    const bad = { ...h.task('true'), timeoutMs: -1 };
    await expect(h.pool.runAttempt(bad)).rejects.toThrow(/timeoutMs/);
    expect(await h.events()).toEqual([]);
  });
});
