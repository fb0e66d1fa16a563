import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli } from './cli-process.js';

/**
 * What `cairn run get` says of attempts that did not fail on their own, with the real server and
 * CLI: a cancelled attempt is `cancelled`, and an attempt cut short by a server stop is counted
 * as interrupted once the node has run again. Runs are named by an 8-character id prefix.
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

/** A node that sleeps the first time it runs and succeeds at once every time after. */
async function writeOnceSlowWorkflow(): Promise<void> {
  const mark = join(home.home, 'ran-once');
  await writeHomeWorkflow(
    home,
    'once-slow',
    `name: once-slow
description: sleeps on its first attempt only
nodes:
  - id: work
    bash: "if [ -f '${mark}' ]; then echo again; else touch '${mark}'; sleep 60; fi"
`,
  );
}

async function waitForEvent(url: string, runId: string, type: string, count = 1): Promise<void> {
  await waitFor(async () => (await getRun(url, runId)).events.filter((e) => e.event_type === type).length >= count, {
    what: `${count} ${type} event(s) of run ${runId}`,
    timeoutMs: 60_000,
  });
}

describe('cairn run get on attempts that were stopped from outside', () => {
  it('shows a cancelled node as cancelled, with the run named by an id prefix', async () => {
    await writeOnceSlowWorkflow();
    const server = await startServer(home);
    const { runId } = await startRun(server.url, 'once-slow');
    await waitForEvent(server.url, runId, 'node_started');
    const prefix = runId.slice(0, 8);

    const cancel = await cli('run', 'cancel', prefix);
    expect(cancel.stderr).toBe('');
    expect(cancel.stdout).toContain('Cancel requested');
    await waitFor(async () => (await getRun(server.url, runId)).run.status === 'cancelled', { what: 'the run to be cancelled' });

    const { code, stdout, stderr } = await cli('run', 'get', prefix);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Run       ${runId}`);
    expect(stdout).toMatch(/^Status\s+cancelled$/m);
    expect(stdout).toMatch(/^work\s+cancelled\s+\S+\s+Cancelled by user$/m);
    expect(stdout).not.toMatch(/^work\s+failed/m);
  });

  it('says a node ran again after an attempt a server stop interrupted', async () => {
    await writeOnceSlowWorkflow();
    const first = await startServer(home);
    const { runId } = await startRun(first.url, 'once-slow');
    await waitForEvent(first.url, runId, 'node_started');
    // node_started is committed just before the program runs: wait until it has left its mark.
    await waitFor(() => existsSync(join(home.home, 'ran-once')), { what: 'the first attempt to run' });
    expect(await first.stop()).toBe(0);

    const second = await startServer(home);
    await waitFor(async () => (await getRun(second.url, runId)).run.status === 'completed', {
      what: 'the run to complete after the restart',
      timeoutMs: 60_000,
    });
    const failed = (await getRun(second.url, runId)).events.find((e) => e.event_type === 'node_failed');
    expect(failed?.data).toMatchObject({ interrupted: true, failure_kind: 'transient' });

    const { code, stdout, stderr } = await cli('run', 'get', runId.slice(0, 8));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^work\s+completed\s+\S+\s+ran again after 1 interrupted attempt$/m);
  });
});
