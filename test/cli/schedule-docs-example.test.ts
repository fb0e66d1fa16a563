import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, userCliEnv } from './cli-process.js';
import { sh } from './shell-line.js';

/** docs/schedules.md's worked example, run as written: the nightly review's file, its schedule, run-now, and the same schedule from the CLI. */

const doc = readFileSync(fileURLToPath(new URL('../../docs/schedules.md', import.meta.url)), 'utf8');
const example = doc.split('\n## A worked example: a nightly review\n')[1]!.split('\n## ')[0]!;
const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

/** The transcripts' `$ cairn ...` steps, each with the lines shown after it. */
const steps = [...example.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((b) => b[1] === '').flatMap((block) => {
  const out: { command: string; output: string[] }[] = [];
  for (const line of block[2]!.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('$ ')) out.push({ command: line.slice(2), output: [] });
    else out.at(-1)?.output.push(line);
  }
  return out;
});
const step = (start: string) => steps.find((s) => s.command.startsWith(start))!;

// One server for the file: no test restarts it, and each leaves no schedule the others would
// list (the docs example's come first; the refused ones create none; the last removes its own).
let home: TempHome;
let server: RunningServer;
let store: Store;
beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  server = await startServer(home);
  store = home.openStore();
});
afterAll(async () => {
  await home.close();
});

const cairn = (line: string) =>
  sh(line.replace(/^cairn /, `"${process.execPath}" "${bin}" `), home.home, userCliEnv(home.home, { CAIRN_URL: server.url }));

it('the nightly review: its trigger becomes a schedule, run-now starts a run that completes, and the CLI makes the same schedule', async () => {
  const yaml = /```yaml\n([\s\S]*?)```/.exec(example)![1]!;
  await writeHomeWorkflow(home, 'nightly-review', yaml);

  const list = step('cairn schedule list');
  const listed = await waitFor(async () => {
    const res = await cairn(list.command);
    return res.stdout.includes('nightly-review#0') ? res : undefined;
  }, { what: 'the declared schedule in `cairn schedule list`' });
  const [header, row] = listed.stdout.trimEnd().split('\n');
  expect(header).toBe(list.output[0]);
  const shownRow = list.output[1]!.replace(/<the next 02:30 in Berlin>$/, '');
  expect(row!.startsWith(shownRow)).toBe(true);
  // The next 02:30 in Berlin is 00:30 or 01:30 UTC.
  expect(row).toMatch(/T0[01]:30:00\.000Z$/);

  const runNow = await cairn(step('cairn schedule run-now').command);
  expect(runNow.code).toBe(0);
  const runId = /^Started run (\S+)\.$/.exec(runNow.stdout.trim())?.[1];
  expect(runId, runNow.stdout + runNow.stderr).toBeDefined();
  const run = await waitFor(async () => {
    const r = await store.getRun(runId!);
    return r && ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  }, { what: 'the run-now run to end' });
  expect(run).toMatchObject({ status: 'completed', workflow_name: 'nightly-review', inputs: { days: '1' } });

  const add = step('cairn schedule add');
  const added = await cairn(add.command);
  expect(added.code, added.stderr).toBe(0);
  const [first, next] = added.stdout.trimEnd().split('\n');
  expect(first).toBe(add.output[0]);
  expect(next).toMatch(/^Next: \S+T0[01]:30:00\.000Z, \S+, \S+$/);
});

it('refuses a bad cron expression or time zone with a usage error (exit 2) naming it, and sends nothing', async () => {
  const before = (await store.listSchedules()).map((s) => s.id);
  const badCron = await cairn("cairn schedule add x --workflow nightly-review --cron '0 25 * * *'");
  expect(badCron.code).toBe(2);
  expect(badCron.stderr).toMatch(/cron '0 25 \* \* \*' is not a cron expression/);
  const badZone = await cairn("cairn schedule add x --workflow nightly-review --cron '0 3 * * *' --timezone Europe/Atlantis");
  expect(badZone.code).toBe(2);
  expect(badZone.stderr).toMatch(/timezone 'Europe\/Atlantis' is not an IANA time zone name/);
  const badOverlap = await cairn("cairn schedule add x --workflow nightly-review --cron '0 3 * * *' --overlap queue");
  expect(badOverlap.code).toBe(2);
  expect(badOverlap.stderr).toMatch(/--overlap 'queue' is not a policy: use skip, buffer_one, buffer_all, cancel_other, allow_all/);
  // No schedule was made: the schedules are the ones there were before.
  expect((await store.listSchedules()).map((s) => s.id)).toEqual(before);
});

it('pauses, resumes, lists and removes a schedule; a missing workflow or schedule is a failure naming it', async () => {
  await writeHomeWorkflow(home, 'tick', 'name: tick\ndescription: t\nnodes:\n  - id: a\n    bash: echo tick\n');
  expect((await cairn("cairn schedule add hourly --workflow tick --cron '0 * * * *' --overlap buffer_one --catch-up 15m")).code).toBe(0);
  expect((await cairn('cairn schedule pause hourly')).stdout).toBe('Paused schedule hourly.\n');
  expect((await cairn('cairn schedule list')).stdout).toMatch(/hourly\s+tick\s+0 \* \* \* \* \(UTC\)\s+buffer_one\s+api\s+paused/);
  expect((await cairn('cairn schedule resume hourly')).stdout).toMatch(/^Resumed schedule hourly; next: \S+T\d\d:00:00\.000Z\.\n$/);
  expect((await cairn('cairn schedule remove hourly')).stdout).toMatch(/^Removed schedule hourly \(/);
  const gone = await cairn('cairn schedule pause hourly');
  expect(gone.code).toBe(1);
  expect(gone.stderr).toMatch(/No schedule has the id or name 'hourly'/);
  const missing = await cairn("cairn schedule add later --workflow nope --cron '0 3 * * *'");
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/nope/);
});
