import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { execAttemptTaskSchema } from '../../../../src/worker/nodes/exec/exec-task.js';
import { MAX_HELPER_LOSSES } from '../../../../src/worker/lost-attempt.js';
import { runExec } from '../../../../src/worker/nodes/exec/exec.js';
import { findExecutable } from '../../../../src/worker/spawn/find-executable.js';
import { SpawnHelper } from '../../../../src/worker/spawn/spawn-helper.js';

const perl = findExecutable('perl', process.env.PATH);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-lost-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function task(script: string, lostBefore = 0) {
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
    attempt: { id: randomUUID(), number: lostBefore + 1 },
    lostBefore,
    script,
    cwd: dir,
    env: {},
    timeoutMs: 60_000,
    killGraceMs: 100,
    outputSpillDir: 'unused',
  });
}

/** Runs the attempt through `launcher` and kills its helper with SIGKILL once the program runs. */
async function runAndKillHelper(launcher: SpawnHelper, lostBefore = 0) {
  let pid = 0;
  const outcome = await runExec(task('echo started; sleep 60', lostBefore), {
    launcher,
    async onSpawned(spawned) {
      pid = spawned;
      const stat = await readFile(`/proc/${spawned}/stat`, 'latin1');
      const helperPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      setImmediate(() => process.kill(helperPid, 'SIGKILL'));
    },
  });
  return { outcome, pid };
}

describe.runIf(perl)('an exec attempt whose spawn helper dies', () => {
  it('ends interrupted, to be run again, once its group is gone', async () => {
    const launcher = new SpawnHelper(perl!);
    try {
      const { outcome, pid } = await runAndKillHelper(launcher);
      expect(outcome).toMatchObject({ status: 'failed', failureKind: 'transient', retryable: true, interrupted: true, exitCode: null, pid });
      expect(outcome.error).toMatch(/^Attempt interrupted: its spawn helper \(perl, pid \d+\) was killed by SIGKILL while it ran; its processes were killed and the node runs again$/);
      expect(isProcessGroupAlive(pid)).toBe(false);
    } finally {
      launcher.stop();
    }
  });

  it('fails for good at the last loss in a row allowed, with the reason', async () => {
    const launcher = new SpawnHelper(perl!);
    try {
      const { outcome } = await runAndKillHelper(launcher, MAX_HELPER_LOSSES - 1);
      expect(outcome).toMatchObject({ status: 'failed', failureKind: 'fatal', retryable: false });
      expect(outcome.interrupted).toBeUndefined();
      expect(outcome.error).toMatch(new RegExp(`^Node 'n' was running each of the last ${MAX_HELPER_LOSSES} times`));
      expect(outcome.error).toMatch(/was running each of the last \d+ times its spawn helper died \(last: its spawn helper .* was killed by SIGKILL\); it is not run again/);
    } finally {
      launcher.stop();
    }
  });

  it('cannot start while its helper is crash-looping: a final failure that says what to do', async () => {
    // `false` stands in for a perl that dies before it answers anything.
    const launcher = new SpawnHelper(findExecutable('false', process.env.PATH)!, { restartLimit: { maxEarlyDeaths: 2, pauseMs: 60_000 } });
    try {
      const outcome = await runExec(task('echo never'), { launcher });
      expect(outcome).toMatchObject({ status: 'failed', failureKind: 'fatal', retryable: false, output: '' });
      expect(outcome.error).toMatch(/^node 'n' cannot start: the spawn helper .* died 2 times in a row .*CAIRN_EXEC_SPAWNER=direct/);
    } finally {
      launcher.stop();
    }
  });
});
