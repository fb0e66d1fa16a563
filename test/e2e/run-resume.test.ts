import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Resume with real parts: the built server, a real supervisor, bash nodes that leave marker
 * files proving which nodes ran, and control files that make a node fail until removed.
 */

let home: TempHome;
/** The test's own folder of marker and control files. */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-resume-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Detail = Awaited<ReturnType<typeof getRun>>;

async function settled(server: RunningServer, runId: string, after = 0): Promise<Detail> {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    const ended = detail.events.some(
      (e) => e.seq > after && (e.event_type === 'workflow_completed' || e.event_type === 'workflow_failed'),
    );
    return ended && ['completed', 'failed'].includes(detail.run.status as string) ? detail : undefined;
  }, { what: `run ${runId} to finish`, timeoutMs: 45_000 });
}

async function post(server: RunningServer, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const resume = (server: RunningServer, runId: string) => post(server, `/api/workflows/runs/${runId}/resume`);
const lastSeq = (detail: Detail) => Math.max(0, ...detail.events.map((e) => e.seq as number));
const ofNode = (detail: Detail, type: string, node: string, after = 0) =>
  detail.events.filter((e) => e.seq > after && e.event_type === type && e.step_name === node);
const marks = async (name: string) =>
  existsSync(join(dir, name)) ? (await readFile(join(dir, name), 'utf8')).split('\n').filter(Boolean).length : 0;

// Each test writes a workflow of its own name, starts its own run and keeps its files in its own
// folder: one server serves them all.
let server: RunningServer;
describe('on one server', () => {
  beforeAll(async () => {
    home = await makeTempHome();
    server = await startServer(home);
  });
  afterAll(() => home.close());

  it('§12 rows 23-24: a failed run, fixed and resumed, completes under the same id without re-running c', async () => {
    const broken = `name: row23
description: bash only
nodes:
  - id: a
    bash: exit 1
  - id: b
    depends_on: [a]
    bash: echo b
  - id: c
    bash: echo hi
`;
    await writeHomeWorkflow(home, 'row23', broken);
    const { runId } = await startRun(server.url, 'row23');
    const failed = await settled(server, runId);
    expect(failed.run.status).toBe('failed');
    expect(failed.run.error).toMatch(/^DAG workflow 'row23' completed with failures: 'a':/);
    expect(ofNode(failed, 'node_failed', 'a')).toHaveLength(1);
    expect(ofNode(failed, 'node_skipped', 'b')[0]!.data.reason).toBe('trigger_rule');
    expect(ofNode(failed, 'node_completed', 'c')[0]!.data.node_output).toBe('hi');

    // Fix a in the workflow file. The run executes its own copy of the workflow (issue 30), so the
    // fix applies through a resume that asks to reload the file (docs/runs.md, "Resuming a failed run").
    await writeHomeWorkflow(home, 'row23', broken.replace('bash: exit 1', 'bash: echo fixed'));
    const before = lastSeq(failed);
    const answer = await post(server, `/api/workflows/runs/${runId}/resume`, { reload: true });
    expect(answer).toEqual({ status: 200, body: { success: true, message: expect.any(String) } });

    const done = await settled(server, runId, before);
    expect(done.run.id).toBe(runId);
    expect(done.run.status).toBe('completed');
    expect(done.run.error).toBeNull();
    const replay = ofNode(done, 'node_skipped_prior_success', 'c', before);
    expect(replay).toHaveLength(1);
    expect(replay[0]!.data).toMatchObject({ reason: 'prior_success', node_output: 'hi' });
    expect(replay[0]!.data.execution.cache).toMatchObject({ action: 'replayed', output: { text: 'hi' } });
    expect(ofNode(done, 'node_started', 'c', before)).toHaveLength(0);
    expect(ofNode(done, 'node_completed', 'a', before)[0]!.data.node_output).toBe('fixed');
    expect(ofNode(done, 'node_completed', 'b', before)[0]!.data.node_output).toBe('b');
    expect(done.events.filter((e) => e.event_type === 'workflow_resumed')).toHaveLength(1);
    const reloaded = done.events.filter((e) => e.event_type === 'workflow_reloaded');
    expect(reloaded).toHaveLength(1);
    expect(reloaded[0]!.data.workflow.after).not.toBe(reloaded[0]!.data.workflow.before);

    // Row 19's resume text, and a plain run request never resumes: it is a new run.
    expect(await resume(server, runId)).toEqual({ status: 400, body: expect.objectContaining({ error: "Cannot resume workflow in 'completed' status" }) });
    const fresh = await startRun(server.url, 'row23');
    expect(fresh.runId).not.toBe(runId);
    const freshDone = await settled(server, fresh.runId);
    expect(freshDone.events.some((e) => e.event_type === 'node_skipped_prior_success')).toBe(false);
  });

  it('resume, fail, resume, resume: a node that once succeeded never runs again', async () => {
    const node = (id: string, deps: string[] = []) =>
      `  - id: ${id}\n` +
      (deps.length ? `    depends_on: [${deps.join(', ')}]\n` : '') +
      `    bash: echo x >> '${dir}/ran-${id}'; test ! -e '${dir}/fail-${id}' && echo ${id}\n`;
    await writeHomeWorkflow(home, 'alternating', `name: alternating
description: nodes that fail while their control file exists
nodes:
${node('one')}${node('two', ['one'])}${node('three')}${node('four', ['two', 'three'])}`);
    await writeFile(join(dir, 'fail-two'), '');
    await writeFile(join(dir, 'fail-three'), '');
    const { runId } = await startRun(server.url, 'alternating');
    let detail = await settled(server, runId);
    expect(detail.run.status).toBe('failed');

    // Resume 1: two is fixed, three still fails.
    await rm(join(dir, 'fail-two'));
    let before = lastSeq(detail);
    expect((await resume(server, runId)).status).toBe(200);
    detail = await settled(server, runId, before);
    expect(detail.run.status).toBe('failed');
    expect(ofNode(detail, 'node_skipped_prior_success', 'one', before)).toHaveLength(1);

    // Resume 2: three is fixed, four now fails; two failing again would not matter: it is not run.
    await rm(join(dir, 'fail-three'));
    await writeFile(join(dir, 'fail-two'), '');
    await writeFile(join(dir, 'fail-four'), '');
    before = lastSeq(detail);
    expect((await resume(server, runId)).status).toBe(200);
    detail = await settled(server, runId, before);
    expect(detail.run.status).toBe('failed');

    // Resume 3: four is fixed; only four runs.
    await rm(join(dir, 'fail-four'));
    before = lastSeq(detail);
    expect((await resume(server, runId)).status).toBe(200);
    detail = await settled(server, runId, before);
    expect(detail.run.status).toBe('completed');
    expect(['one', 'two', 'three'].map((id) => ofNode(detail, 'node_skipped_prior_success', id, before).length)).toEqual([1, 1, 1]);

    // The markers: each node ran once per failure plus once to succeed, never after.
    expect([await marks('ran-one'), await marks('ran-two'), await marks('ran-three'), await marks('ran-four')]).toEqual([1, 2, 3, 2]);
    for (const id of ['one', 'two', 'three', 'four']) {
      const firstSuccess = ofNode(detail, 'node_completed', id)[0]!.seq as number;
      expect(ofNode(detail, 'node_started', id, firstSuccess)).toEqual([]);
    }
    expect(detail.events.filter((e) => e.event_type === 'workflow_resumed')).toHaveLength(3);
  });

  it('always_run nodes are reset and run; a dependant is invalidated only when their output changed', async () => {
    await writeHomeWorkflow(home, 'stamped', `name: stamped
description: an always_run stamp, a node that uses it, and one that fails while told to
nodes:
  - id: stamp
    always_run: true
    bash: echo x >> '${dir}/ran-stamp'; cat '${dir}/version'
  - id: uses
    depends_on: [stamp]
    bash: echo x >> '${dir}/ran-uses'; echo used
  - id: gate
    bash: test ! -e '${dir}/fail-gate' && echo open
`);
    await writeFile(join(dir, 'version'), '1');
    await writeFile(join(dir, 'fail-gate'), '');
    const { runId } = await startRun(server.url, 'stamped');
    let detail = await settled(server, runId);
    expect(detail.run.status).toBe('failed');

    // Same stamp output: stamp is reset and runs, uses is replayed.
    let before = lastSeq(detail);
    expect((await resume(server, runId)).status).toBe(200);
    detail = await settled(server, runId, before);
    const reset = ofNode(detail, 'node_always_run_reset', 'stamp', before);
    expect(reset).toHaveLength(1);
    expect(reset[0]!.data.prior_output).toBe('1');
    expect(reset[0]!.data.execution.cache).toMatchObject({ action: 'reset', prior: { text: '1' } });
    expect(ofNode(detail, 'node_skipped_prior_success', 'uses', before)).toHaveLength(1);
    expect(ofNode(detail, 'node_prior_cache_invalidated', 'uses', before)).toHaveLength(0);

    // Another stamp output: uses is invalidated by stamp and runs.
    await writeFile(join(dir, 'version'), '2');
    await rm(join(dir, 'fail-gate'));
    before = lastSeq(detail);
    expect((await resume(server, runId)).status).toBe(200);
    detail = await settled(server, runId, before);
    expect(detail.run.status).toBe('completed');
    const invalidated = ofNode(detail, 'node_prior_cache_invalidated', 'uses', before);
    expect(invalidated).toHaveLength(1);
    expect(invalidated[0]!.data).toMatchObject({ reason: 'stale_dependency', invalidating_deps: ['stamp'], prior_output: 'used' });
    expect(invalidated[0]!.data.execution.cache).toMatchObject({ action: 'invalidated', invalidatingDeps: ['stamp'] });
    expect(ofNode(detail, 'node_completed', 'uses', before)).toHaveLength(1);
    expect([await marks('ran-stamp'), await marks('ran-uses')]).toEqual([3, 2]);
  });

  it('docs/runs.md: the build-then-report example, resumed with `cairn run resume <prefix>`', async () => {
    const example = fileURLToPath(new URL('../fixtures/workflows/examples/workflows/build-then-report.yaml', import.meta.url));
    await writeHomeWorkflow(home, 'build-then-report', await readFile(example, 'utf8'));
    const { runId } = await startRun(server.url, 'build-then-report');
    const failed = await settled(server, runId);
    expect(failed.run.status).toBe('failed');
    expect(ofNode(failed, 'node_skipped', 'report')).toHaveLength(1);

    await writeFile(join(home.paths.scratch(runId), 'ready.flag'), '');
    const cli = await runCli(['run', 'resume', runId.slice(0, 8), '--url', server.url], { env: { ...process.env, NO_COLOR: '1' }, cwd: dir });
    expect(cli).toMatchObject({ code: 0, stdout: expect.stringContaining('Resumed workflow build-then-report') });
    const done = await settled(server, runId, lastSeq(failed));
    expect(done.run.status).toBe('completed');
    expect(ofNode(done, 'node_started', 'fetch')).toHaveLength(1);
    expect(ofNode(done, 'node_skipped_prior_success', 'fetch')).toHaveLength(1);
    expect(ofNode(done, 'node_completed', 'report')[0]!.data.node_output).toBe('report on built');
  });
});

// Killing the supervisor leaves a server in take-over: the test starts a server of its own.
describe('on a server of its own', () => {
  beforeEach(async () => {
    home = await makeTempHome();
  });
  afterEach(() => home.close());

  it('resumes a failed run after its supervisor was killed with -9', async () => {
    const server = await startServer(home);
    await writeHomeWorkflow(home, 'after-crash', `name: after-crash
description: one node that succeeds, one that fails while told to
nodes:
  - id: first
    bash: echo x >> '${dir}/ran-first'; echo first
  - id: second
    depends_on: [first]
    bash: test ! -e '${dir}/fail-second' && echo second
`);
    await writeFile(join(dir, 'fail-second'), '');
    const { runId } = await startRun(server.url, 'after-crash');
    const failed = await settled(server, runId);
    expect(failed.run.status).toBe('failed');

    const supervisorPid = await server.pid('supervisor');
    process.kill(supervisorPid, 'SIGKILL');
    // The launcher starts a new supervisor; the failed run stays failed meanwhile.
    await waitFor(async () => {
      const pid = await server.pid('supervisor').catch(() => supervisorPid);
      if (pid === supervisorPid) return false;
      const health = (await fetch(`${server.url}/api/health`).then((r) => r.json())) as Record<string, any>;
      return health.concurrency?.supervisor?.up === true;
    }, { what: 'a new supervisor', timeoutMs: 30_000 });
    expect((await getRun(server.url, runId)).run.status).toBe('failed');

    await rm(join(dir, 'fail-second'));
    const before = lastSeq(failed);
    expect((await resume(server, runId)).status).toBe(200);
    const done = await settled(server, runId, before);
    expect(done.run.status).toBe('completed');
    expect(ofNode(done, 'node_skipped_prior_success', 'first', before)).toHaveLength(1);
    expect(await marks('ran-first')).toBe(1);
  });
});
