import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, userCliEnv } from './cli-process.js';
import { sh } from './shell-line.js';

/**
 * The worked examples of the runs that start themselves, run as written on one server:
 * docs/schedules.md's (the nightly review's file, its schedule, run-now, and the same schedule
 * from the CLI) and docs/webhooks.md's (a CI system's signed delivery, sent twice), with a
 * hostile payload value that a bash node must print, not run.
 */

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
// The webhook tests make hooks of their own, which no schedule test lists.
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

describe("docs/webhooks.md's worked example: a webhook from a CI system", () => {
  const hooksDoc = readFileSync(fileURLToPath(new URL('../../docs/webhooks.md', import.meta.url)), 'utf8');
  const hookExample = hooksDoc.split('\n## A worked example: a webhook from a CI system\n')[1]!.split('\n## ')[0]!;
  const block = (lang: string) => [...hookExample.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((b) => b[1] === lang).map((b) => b[2]!);
  const SECRET = '3f9a1c07d2b84e65a0f1c2d3e4f50617';
  const ci = (script: string) => sh(script, home.home, userCliEnv(home.home, { CAIRN_URL: server.url, CI_HOOK_SECRET: SECRET }));
  const endOf = (runId: string) =>
    waitFor(async () => {
      const r = await store.getRun(runId);
      return r && ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
    }, { what: `run ${runId} to end` });

  it('the hook made as shown, the CI step run as written starts one run that completes; sent again it answers the same run', async () => {
    await writeHomeWorkflow(home, 'ci-report', block('yaml')[0]!);
    const transcript = block('')[0]!.replace(/\n$/, '').split('\n');
    // `$ ` lines and the lines shown after each.
    const steps: { command: string; output: string[] }[] = [];
    for (const line of transcript) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
      else steps.at(-1)!.output.push(line);
    }
    for (const s of steps) {
      const res = await ci(s.command.replace(/\bcairn /, `"${process.execPath}" "${bin}" `));
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.trimEnd().split('\n')).toEqual(s.output);
    }
    const send = block('sh')[0]!;
    const first = await ci(send);
    expect(first.code, first.stderr).toBe(0);
    const shown = JSON.parse(block('json')[0]!.replace('<run id>', 'x'));
    const answer = JSON.parse(first.stdout);
    expect(Object.keys(answer)).toEqual(Object.keys(shown));
    expect(answer).toMatchObject({ deliveryId: shown.deliveryId, duplicate: false });
    const run = await endOf(answer.runId);
    expect(run).toMatchObject({
      status: 'completed', workflow_name: 'ci-report', inputs: { sha: '9f2c1e0', branch: 'main', status: 'passed' },
      metadata: { hook: { name: 'ci-build', delivery_id: 'build-1234' } },
    });
    const again = await ci(send);
    expect(JSON.parse(again.stdout)).toEqual({ runId: answer.runId, deliveryId: 'build-1234', duplicate: true });
    expect((await store.listRuns({ workflowName: 'ci-report', limit: 10 })).map((r) => r.id)).toEqual([answer.runId]);
  });

  it('a hostile payload value mapped into an input reaches the bash node as text: nothing in it is run', async () => {
    const seen = join(home.home, 'seen.txt');
    const pwned = join(home.home, 'pwned');
    await writeHomeWorkflow(
      home,
      'echo-branch',
      `name: echo-branch\ndescription: writes its input\ninputs:\n  branch: { required: true }\nnodes:\n  - id: a\n    bash: 'printf "%s" "$INPUTS.branch" > "${seen}"; echo $INPUTS.branch'\n`,
    );
    const add = await fetch(`${server.url}/api/hooks`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hostile', workflow: 'echo-branch', signature: 'github', secret: SECRET, inputs: { branch: '$.ref' } }),
    });
    expect(add.status).toBe(201);
    const hostile = `main$(touch ${pwned})\`touch ${pwned}\`"; touch ${pwned}; echo '\n$HOME \${IFS}`;
    const body = JSON.stringify({ ref: hostile });
    const res = await fetch(`${server.url}/api/hooks/hostile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-delivery': 'h-1', 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` },
      body,
    });
    expect(res.status).toBe(202);
    const run = await endOf(((await res.json()) as { runId: string }).runId);
    expect(run.status).toBe('completed');
    expect(run.inputs.branch).toBe(hostile);
    expect(await readFile(seen, 'utf8')).toBe(hostile);
    expect(existsSync(pwned)).toBe(false);
  });

  it('cairn hooks add refuses a bad signature form, path or secret with a usage error (exit 2) naming it; remove removes a hook', async () => {
    const before = (await store.listHooks()).map((h) => h.name);
    const refusals: [string, RegExp][] = [
      ['cairn hooks add x --workflow ci-report --signature gitlab --stdin', /--signature 'gitlab' is not a form: use github or generic/],
      ["cairn hooks add x --workflow ci-report --signature github --input sha='$.commits[*].id' --stdin", /--input 'sha': path '\$.commits\[\*\].id' is not supported at '\[\*\].id'/],
      ["printf short | cairn hooks add x --workflow ci-report --signature github --input sha='$.after' --stdin", /the secret must be at least 16 characters \(got 5\)/],
    ];
    for (const [line, text] of refusals) {
      const res = await ci(line.replace(/\bcairn /, `"${process.execPath}" "${bin}" `));
      expect(res.code, line).toBe(2);
      expect(res.stderr).toMatch(text);
    }
    expect((await store.listHooks()).map((h) => h.name)).toEqual(before);
    const removed = await ci(`"${process.execPath}" "${bin}" hooks remove ci-build && "${process.execPath}" "${bin}" hooks remove ci-build`);
    expect(removed.stdout).toBe('Removed webhook ci-build.\n');
    expect(removed.code).toBe(1);
    expect(removed.stderr).toMatch(/No webhook is named 'ci-build'/);
  });
});
