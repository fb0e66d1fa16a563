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

const endOf = (runId: string) =>
  waitFor(async () => {
    const r = await store.getRun(runId);
    return r && ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  }, { what: `run ${runId} to end` });

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

describe("a workflow's concurrency policy holds for every way a run starts (docs/workflows.md, Concurrency)", () => {
  const SECRET = '3f9a1c07d2b84e65a0f1c2d3e4f50617';
  const cli = (args: string) => cairn(`cairn ${args}`);
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const deliver = (hook: string, id: string, payload: unknown) => {
    const body = JSON.stringify(payload);
    return fetch(`${server.url}/api/hooks/${hook}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` },
      body,
    });
  };
  /** Each run's node writes `start <run>` and `end <run>` lines; a held run waits at an approval gate first. */
  const workflow = (name: string, onOverlap: string, log: string) => `name: ${name}
description: one run per pull request at a time
inputs:
  pr: { default: "7" }
  hold: { default: "no" }
concurrency: { key: "pr-$INPUTS.pr", limit: 1, on_overlap: ${onOverlap} }
nodes:
  - id: gate
    when: "$INPUTS.hold == 'yes'"
    approval: { message: "go on?" }
  - id: work
    depends_on: [gate]
    trigger_rule: all_done
    bash: |
      echo "start $WORKFLOW_ID" >> "${log}"
      sleep 0.2
      echo "end $WORKFLOW_ID" >> "${log}"
`;

  it('queue: starts from the API, the CLI, a schedule, a webhook and a chat wait in line behind a paused run, never overlap and all complete, across a kill -9 of the supervisor; refuse: each is refused as documented', async () => {
    const log = join(home.home, 'pr-runs.log');
    await writeHomeWorkflow(home, 'one-per-pr', workflow('one-per-pr', 'queue', log));
    await writeHomeWorkflow(home, 'one-per-pr-strict', workflow('one-per-pr-strict', 'refuse', join(home.home, 'strict.log')));
    for (const name of ['one-per-pr', 'one-per-pr-strict']) {
      expect((await cli(`schedule add ${name}-7 --workflow ${name} --cron '0 3 * * *' --input pr=7 --overlap allow_all`)).code).toBe(0);
      expect((await post('/api/hooks', { name: `${name}-hook`, workflow: name, signature: 'github', secret: SECRET, inputs: { pr: '$.pr' } })).status).toBe(201);
    }
    // A run of each holds the key's one place, paused at its gate (a paused run keeps its place).
    const holders = await Promise.all(['one-per-pr', 'one-per-pr-strict'].map(async (name) => {
      const res = await post(`/api/workflows/${name}/run`, { inputs: { pr: '7', hold: 'yes' } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { runId: string }).runId;
    }));
    await waitFor(async () => (await Promise.all(holders.map((id) => store.getRun(id)))).every((r) => r?.status === 'paused') || undefined, { what: 'the holders to pause' });

    // Every way at once, for each workflow.
    const starts = (name: string) => [
      post(`/api/workflows/${name}/run`, { inputs: { pr: '7' } }).then(async (res) => ({ via: 'api', status: res.status, body: await res.text() })),
      cli(`workflow run ${name} --input pr=7 --output none`).then((res) => ({ via: 'cli', status: res.code, body: res.stdout + res.stderr })),
      cli(`schedule run-now ${name}-7 --json`).then((res) => ({ via: 'schedule', status: res.code, body: res.stdout + res.stderr })),
      deliver(`${name}-hook`, `${name}-d1`, { pr: 7 }).then(async (res) => ({ via: 'hook', status: res.status, body: await res.text() })),
      post(`/api/conversations/chat-${name}/message`, { message: `/workflow run ${name}` }).then(async (res) => ({ via: 'chat', status: res.status, body: await res.text() })),
    ];
    const strict = Promise.all(starts('one-per-pr-strict'));
    const queued = starts('one-per-pr');
    const cliDone = queued.splice(1, 1)[0]!;
    const admitted = await Promise.all(queued);
    expect(admitted.map((a) => [a.via, a.status])).toEqual([['api', 200], ['schedule', 0], ['hook', 202], ['chat', 200]]);

    // Five runs wait behind the holder, one after another, and say so.
    const waiting = await waitFor(async () => {
      const runs = (await store.listRuns({ workflowName: 'one-per-pr', limit: 20 })).filter((r) => r.id !== holders[0]);
      return runs.length === 5 ? runs : undefined;
    }, { what: 'the five queued runs' });
    for (const run of waiting) {
      expect(run.status).toBe('pending');
      expect(run.metadata.concurrency).toMatchObject({ key: 'pr-7', limit: 1, on_overlap: 'queue', waiting_for: [holders[0]] });
    }
    expect(waiting.map((r) => r.metadata.concurrency!.position).sort()).toEqual([1, 2, 3, 4, 5]);
    const last = waiting.find((r) => r.metadata.concurrency!.position === 5)!;
    const shown = await cli(`run get ${last.id}`);
    expect(shown.stdout).toMatch(new RegExp(`Waiting\\s+for a place of concurrency key "pr-7" \\(limit 1\\): number 5 in line; it starts when one of ${holders[0]} ends`));

    const dispatched = await waitFor(async () => {
      const res = await fetch(`${server.url}/api/conversations/chat-one-per-pr/messages`);
      return ((await res.json()) as { content: string }[]).find((m) => m.content.startsWith('🚀 Dispatching workflow'));
    }, { what: 'the chat to dispatch the queued run' });
    expect(dispatched.content).toBe(`🚀 Dispatching workflow: **one-per-pr** (background); it waits for a place of concurrency key "pr-7", behind ${holders[0]}`);

    // refuse: nothing more is admitted, and each path answers as documented.
    const refused = Object.fromEntries((await strict).map((r) => [r.via, r]));
    expect(refused.api).toMatchObject({ status: 409 });
    expect(JSON.parse(refused.api!.body)).toMatchObject({ code: 'CONCURRENCY_LIMIT_REACHED', error: expect.stringContaining(holders[1]!) });
    expect(refused.cli!.status).toBe(1);
    expect(refused.cli!.body).toContain(`and ${holders[1]} holds its one place`);
    expect(JSON.parse(refused.schedule!.body)).toMatchObject({ runId: null, fire: { outcome: 'skipped', reason: expect.stringContaining(holders[1]!) } });
    expect(refused.hook).toMatchObject({ status: 409 });
    expect(refused.chat!.status).toBe(200);
    const chatAnswer = await waitFor(async () => {
      const res = await fetch(`${server.url}/api/conversations/chat-one-per-pr-strict/messages`);
      const messages = (await res.json()) as { content: string }[];
      return messages.find((m) => m.content.startsWith("Cannot run workflow 'one-per-pr-strict'"));
    }, { what: 'the chat to answer the refused start' });
    expect(chatAnswer.content).toContain(holders[1]);
    expect((await store.listRuns({ workflowName: 'one-per-pr-strict', limit: 20 })).map((r) => r.id)).toEqual([holders[1]]);

    // The supervisor dies (kill -9) while five runs wait; the one the launcher starts again
    // carries on: once the holders are approved, every queued run completes, one at a time.
    const supervisor = await server.pid('supervisor');
    process.kill(supervisor, 'SIGKILL');
    for (const holder of holders) expect((await cli(`run approve ${holder}`)).code).toBe(0);
    const cliRun = await cliDone;
    expect(cliRun.status, cliRun.body).toBe(0);
    // cairn workflow run said what its run waited for before following it.
    expect(cliRun.body).toMatch(/^Waiting for a place of concurrency key "pr-7" \(limit 1\): number [1-5] in line; it starts when one of \S+ ends\.$/m);
    for (const run of [holders[0]!, ...waiting.map((r) => r.id)]) expect((await endOf(run)).status).toBe('completed');
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n');
    expect(lines, lines.join('\n')).toHaveLength(12);
    let open = 0;
    for (const line of lines) {
      open += line.startsWith('start ') ? 1 : -1;
      expect(open).toBeLessThanOrEqual(1);
    }
    expect(await server.pid('supervisor')).not.toBe(supervisor);
    for (const name of ['one-per-pr', 'one-per-pr-strict']) {
      expect((await cli(`schedule remove ${name}-7`)).code).toBe(0);
      expect((await cli(`hooks remove ${name}-hook`)).code).toBe(0);
    }
  });
});
