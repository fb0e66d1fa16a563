import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listen, makeTestApp } from '../helpers/app.js';
import { startSupervisor, type SupervisorHarness } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { runCliInProcess } from './cli-harness.js';
import { docTranscript, normalise } from './doc-transcripts.js';

/**
 * `cairn run resume` of a failed run whose workflow's concurrency key has no place free, as
 * docs/cli.md shows it: with `on_overlap: queue` it says for whom the run waits and what to do
 * next (exit 0); with `refuse` it prints the refusal and how to resume once a place is free
 * (exit 1), the run left failed. One API server (in this process, on a port) and one supervisor.
 */

let home: TempHome;
let url: string;
let sup: SupervisorHarness;
beforeAll(async () => {
  home = await makeTempHome();
  const api = await makeTestApp(home);
  url = await listen(api.app);
  sup = await startSupervisor(home);
  for (const [name, key, onOverlap] of [['review-pr', 'pr-42', 'queue'], ['deploy', 'production', 'refuse']] as const) {
    await writeHomeWorkflow(home, name, `name: ${name}
description: a check that fails until its mark exists, then a gate that holds the place
concurrency: { key: "${key}", limit: 1, on_overlap: ${onOverlap} }
nodes:
  - id: check
    bash: "test -e '${join(home.home, `ok-${name}`)}'"
  - id: review
    depends_on: [check]
    approval: { message: "ok?" }
`);
  }
});
afterAll(async () => {
  await home.close();
});

const env = () => ({ CAIRN_URL: url, NO_COLOR: '1' });

/** A run of the workflow that failed on its check, and one started after it that holds the key's place at its gate. */
async function failedAndHolder(name: string): Promise<{ failed: string; holder: string }> {
  const { runId: failed } = await startRun(url, name);
  expect((await sup.waitForStatus(failed, ['failed', 'completed'])).status).toBe('failed');
  await writeFile(join(home.home, `ok-${name}`), '');
  const { runId: holder } = await startRun(url, name);
  await sup.waitForStatus(holder, ['paused']);
  return { failed, holder };
}

it('prints whom a resumed run waits for and what to do next (queue, exit 0), or the refusal and how to resume later (refuse, exit 1), as docs/cli.md shows', async () => {
  const [queued, refused] = docTranscript('cairn run resume', 'cairn run resume 7f3c…');
  const waits = await failedAndHolder('review-pr');
  const shownWaits = { [waits.failed]: '7f3c…', [waits.holder]: '9b41…' };
  const waiting = await runCliInProcess(['run', 'resume', waits.failed.slice(0, 8)], { env: env(), cwd: home.home });
  expect(queued!.command).toBe('cairn run resume 7f3c…');
  expect([waiting.code, waiting.stderr]).toEqual([0, '']);
  expect(normalise(waiting.stdout, waits.failed, shownWaits)).toEqual(queued!.output);
  expect((await sup.store.getRun(waits.failed))!.status).toBe('pending');
  // Its first line is the server's answer, which docs/http-api.md shows for the same runs.
  const apiDoc = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');
  const shownAnswer = /```json\n(\{[^\n]*waits for a place of its concurrency key[^\n]*\})\n```/.exec(apiDoc)![1]!;
  expect(JSON.parse(shownAnswer)).toEqual({ success: true, message: queued!.output[0] });

  const full = await failedAndHolder('deploy');
  const before = await sup.store.getRun(full.failed);
  const shownFull = { [full.failed]: '2d8e…', [full.holder]: '5c07…' };
  const refusal = await runCliInProcess(['run', 'resume', full.failed], { env: env(), cwd: home.home });
  expect(refused!.command).toBe('cairn run resume 2d8e…');
  expect([refusal.code, refusal.stdout]).toEqual([1, '']);
  // Its ids are written as the docs write them (`7f3c…` is the first run's).
  expect(normalise(refusal.stderr.replaceAll(full.failed, shownFull[full.failed]!), waits.failed, shownFull)).toEqual(refused!.output);
  expect(await sup.store.getRun(full.failed)).toEqual(before);
});
