import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listen, makeTestApp } from '../helpers/app.js';
import { startSupervisor, type SupervisorHarness } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * POST …/fan-out/{node}/retry of a run whose workflow's concurrency key has no place free: the
 * retry is a resume, and a run that ended holds no place, so it asks for one. With `queue` the
 * answer says the run waits (it is pending); with `refuse` it is 409 and the run is left as it was.
 * The API server (in this process, on a port) and a real supervisor.
 */

let home: TempHome;
let url: string;
let sup: SupervisorHarness;
beforeAll(async () => {
  home = await makeTempHome();
  url = await listen((await makeTestApp(home)).app);
  sup = await startSupervisor(home);
  const hold = join(home.home, 'hold');
  const go = join(home.home, 'go');
  // `bad` fails; once `hold` exists, it first waits for `go` (its run then holds the key's place).
  await writeHomeWorkflow(home, 'item', `name: item
description: one item
nodes:
  - id: do
    bash: "case \\"$ARGUMENTS\\" in bad) if [ -e '${hold}' ]; then while [ ! -e '${go}' ]; do sleep 0.02; done; fi; exit 1;; esac; echo ok"
`);
  for (const onOverlap of ['queue', 'refuse']) {
    await writeHomeWorkflow(home, `fan-${onOverlap}`, `name: fan-${onOverlap}
description: a fan-out with an item that fails
concurrency: { key: "k", limit: 1, on_overlap: ${onOverlap} }
nodes:
  - id: each
    workflow: item
    fan_out: { items: '["a","bad"]', join: all_done, mode: child_runs }
`);
  }
});
afterAll(async () => {
  await writeFile(join(home.home, 'go'), '');
  await home.close();
});

/** A run that completed with a failed item, and one started after it that holds the key's place. */
async function completedAndHolder(name: string): Promise<{ ended: string; holder: string }> {
  // A holder of another workflow already waits inside its loop: taking `hold` away frees nothing.
  await rm(join(home.home, 'hold'), { force: true });
  const { runId: ended } = await startRun(url, name);
  expect((await sup.waitForStatus(ended, ['completed', 'failed'])).status).toBe('completed');
  await writeFile(join(home.home, 'hold'), '');
  const { runId: holder } = await startRun(url, name);
  await sup.waitForStatus(holder, ['running']);
  return { ended, holder };
}

const retry = (runId: string) => fetch(`${url}/api/workflows/runs/${runId}/fan-out/each/retry`, { method: 'POST' });

it('queue: the retry waits for a place and says so; refuse: 409 naming the holder, the run left completed', async () => {
  const queued = await completedAndHolder('fan-queue');
  const waits = await retry(queued.ended);
  expect(waits.status).toBe(200);
  expect(await waits.json()).toEqual({
    success: true,
    retried: 1,
    message: `Retry of 1 failed item(s) of 'each' waits for a place of its concurrency key "k": the run is pending, number 1 in line behind ${queued.holder}.`,
  });
  expect((await sup.store.getRun(queued.ended))!.status).toBe('pending');

  const refused = await completedAndHolder('fan-refuse');
  const before = await sup.store.getRun(refused.ended);
  const answer = await retry(refused.ended);
  expect(answer.status).toBe(409);
  expect(await answer.json()).toEqual({
    code: 'CONCURRENCY_LIMIT_REACHED',
    error:
      `Workflow 'fan-refuse' allows 1 run at a time for concurrency key "k" (on_overlap: refuse), and ${refused.holder} holds its one place; ` +
      'resume it again once that run has ended, or cancel it',
  });
  expect(await sup.store.getRun(refused.ended)).toEqual(before);
});
