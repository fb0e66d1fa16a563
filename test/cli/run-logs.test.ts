import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLogsResponseSchema } from '../../src/wire/runs.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli } from './cli-process.js';

/**
 * `cairn run logs` and the logs routes with the real server, supervisor and CLI (issue 8): a
 * failed node's stdout, a successful node's stderr, and a stderr longer than the stored preview
 * read whole from its spill file.
 */

let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const cli = (...argv: string[]) => runUserCli(home.home, argv);

const LINES = 4000; // ~46 KiB of stderr: past the 32 KiB stored preview

async function finishedRun(): Promise<{ url: string; runId: string }> {
  await writeHomeWorkflow(
    home,
    'noisy',
    `name: noisy
description: one node warns and succeeds, the next prints and fails
nodes:
  - id: warn
    bash: "echo fine; echo 'warning: old flag' >&2"
  - id: boom
    depends_on: [warn]
    bash: "echo partial result; i=0; while [ $i -lt ${LINES} ]; do echo \\"trace line $i\\" >&2; i=$((i+1)); done; exit 4"
`,
  );
  const server = await startServer(home);
  const { runId } = await startRun(server.url, 'noisy');
  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'failed', { what: `run ${runId} failed`, timeoutMs: 60_000 });
  return { url: server.url, runId };
}

describe('cairn run logs', () => {
  it('prints both streams of every attempt, a failed node’s stdout and a successful node’s stderr included', async () => {
    const { url, runId } = await finishedRun();
    const res = await cli('run', 'logs', runId.slice(0, 8), '--url', url);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/== warn \(attempt \w+\) completed\n-- stdout \(4 bytes\)\nfine\n-- stderr \(\d+ bytes\)\nwarning: old flag\n/);
    expect(res.stdout).toMatch(/== boom \(attempt \w+\) failed: exit code 4: [^\n]*\n-- stdout \(\d+ bytes\)\npartial result\n/);
    expect(res.stdout).toMatch(/-- stderr cut at \d+ of \d+ bytes; add --full to print all of it/);
    expect(res.stdout).not.toContain(`trace line ${LINES - 1}\n`);

    const full = await cli('run', 'logs', runId, '--node', 'boom', '--stream', 'stderr', '--full', '--url', url);
    expect(full.code).toBe(0);
    expect(full.stdout).not.toContain('== warn');
    const traces = full.stdout.split('\n').filter((line) => line.startsWith('trace line '));
    expect(traces).toEqual(Array.from({ length: LINES }, (_, i) => `trace line ${i}`));
  });

  it('pages attempts over HTTP and refuses an unknown seq with what to do next', async () => {
    const { url, runId } = await finishedRun();
    const first = runLogsResponseSchema.parse(await (await fetch(`${url}/api/workflows/runs/${runId}/logs?limit=1`)).json());
    expect(first.attempts.map((a) => a.path)).toEqual(['warn']);
    expect(first.nextAfterSeq).not.toBeNull();
    const second = runLogsResponseSchema.parse(
      await (await fetch(`${url}/api/workflows/runs/${runId}/logs?limit=1&afterSeq=${first.nextAfterSeq}`)).json(),
    );
    expect(second.attempts[0]).toMatchObject({ path: 'boom', status: 'failed', failureKind: 'exec_failed' });
    expect(second.attempts[0]!.stderr).toMatchObject({ truncated: true, spilled: true });

    const missing = await fetch(`${url}/api/workflows/runs/${runId}/logs/999999/stderr`);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(await missing.json())).toContain(`/api/workflows/runs/${runId}/logs`);
  });
});
