import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/cli-harness.js';
import { listen, makeTestApp } from '../../helpers/app.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../../helpers/openai-server.js';
import { startSupervisor, type LooseEvent } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

/**
 * `auto_resume: { on_quota: true }` through the real supervisor, worker pool and
 * `openai-compatible` adapter against a local server that answers as the ChatGPT backend does when
 * a plan's usage limit is reached (429 `usage_limit_reached` with `resets_in_seconds`): the run
 * fails, saying when it resumes, and resumes by itself after the reset, re-running only the node
 * that hit the limit.
 */

let home: TempHome;
let server: OpenAiServer | undefined;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
  server = undefined;
});

const usageLimit = (resetsInSeconds: number): ChatReply => ({
  kind: 'error', status: 429, type: 'usage_limit_reached', message: 'The usage limit has been reached',
  fields: { plan_type: 'plus', resets_in_seconds: resetsInSeconds },
});

/** docs/runs.md's example, as the docs show it (test/fixtures/workflows/examples). */
const documented = readFileSync(fileURLToPath(new URL('../../fixtures/workflows/examples/workflows/nightly-notes.yaml', import.meta.url)), 'utf8');
/** The same workflow with another `auto_resume` block, or none. */
const workflow = (autoResume: string) => documented.replace('auto_resume:\n  on_quota: true\n', autoResume);

const of = (events: LooseEvent[], type: string, step: string | null = null) => events.filter((e) => e.event_type === type && e.step_name === step);

it('fails a run on a usage limit saying when it resumes, then resumes it by itself after the reset and finishes it', async () => {
  const replies: ChatReply[] = [usageLimit(1), { kind: 'stream', deltas: ['the notes'] }];
  server = await startOpenAiServer((_req, i) => replies[i] ?? { kind: 'error', status: 500, type: 'server_error', message: 'unexpected call' });
  const sup = await startSupervisor(home, { env: { OPENAI_BASE_URL: server.url } });
  const run = await sup.createRun(documented);

  const failed = await sup.waitForStatus(run.id, ['failed', 'completed']);
  expect(failed.status).toBe('failed');
  const failure = of(await sup.events(run.id), 'workflow_failed')[0]!;
  expect(failure.data.auto_resume).toMatchObject({ nodes: ['ask'], resume: 1, of: 3 });
  const at = Date.parse(failure.data.auto_resume.at);
  // The reset the server stated (1 s) plus the margin, never before it.
  expect(at).toBeGreaterThan(Date.parse(failure.created_at));
  expect(failed.metadata.auto_resume).toEqual(failure.data.auto_resume);
  const queued = (await sup.store.listRunJobs(run.id)).filter((j) => j.kind === 'resume_run');
  expect(queued).toHaveLength(1);
  expect(queued[0]!.payload).toEqual({ auto: { at: failure.data.auto_resume.at } });

  // The resume is a job in the store, not a timer: the supervisor that queued it stops, and the
  // next one to start resumes the run on time.
  await sup.stop();
  const next = await startSupervisor(home, { env: { OPENAI_BASE_URL: server.url } });
  const done = await next.waitForStatus(run.id, ['completed']);
  const events = await next.events(run.id);
  expect(of(events, 'workflow_resumed')[0]?.data).toMatchObject({ auto: true, resumedFrom: 'failed' });
  expect(Date.parse(of(events, 'workflow_resumed')[0]!.created_at)).toBeGreaterThanOrEqual(at);
  // The node that hit the limit ran again; the one before it kept its success.
  expect(of(events, 'node_started', 'gather')).toHaveLength(1);
  expect(of(events, 'node_completed', 'publish')[0]?.data.node_output).toBe('published the notes');
  expect(server.requests).toHaveLength(2);
  expect(done.metadata.auto_resume ?? null).toBeNull();
  expect(done.metadata.auto_resumes).toBe(1);
});

it('records the limit and its reset but leaves the run failed when the workflow does not opt in; a person who resumes first makes the queued resume moot', async () => {
  server = await startOpenAiServer((_req, i) => (i === 0 || i === 1 ? usageLimit(3600) : { kind: 'stream', deltas: ['late notes'] }));
  const sup = await startSupervisor(home, { env: { OPENAI_BASE_URL: server.url } });

  const plain = await sup.createRun(workflow(''));
  expect((await sup.waitForStatus(plain.id, ['failed', 'completed'])).status).toBe('failed');
  const nodeFailed = of(await sup.events(plain.id), 'node_failed', 'ask')[0]!;
  const provider = nodeFailed.data.execution.lifecycle.providerFailure;
  expect(provider.class).toBe('quota_exhausted');
  expect(Date.parse(provider.resetAt) - Date.parse(nodeFailed.created_at)).toBeGreaterThan(3_500_000);
  expect(of(await sup.events(plain.id), 'workflow_failed')[0]!.data.auto_resume).toBeUndefined();
  expect((await sup.store.listRunJobs(plain.id)).filter((j) => j.kind === 'resume_run')).toEqual([]);

  // With auto_resume, the resume is an hour away; a person resumes at once.
  const waiting = await sup.createRun(workflow('auto_resume:\n  on_quota: true\n  max_resumes: 2\n'));
  const failed = await sup.waitForStatus(waiting.id, ['failed', 'completed']);
  expect(failed.metadata.auto_resume).toMatchObject({ nodes: ['ask'], resume: 1, of: 2 });
  const url = await listen((await makeTestApp(home)).app);
  const shown = await runCliInProcess(['run', 'get', waiting.id, '--url', url]);
  expect(shown.stdout).toMatch(/Resumes +by itself at .+, once the usage limit of ask resets \(automatic resume 1 of 2; cairn run resume \S+ goes on now\)/);
  expect((await runCliInProcess(['run', 'resume', waiting.id, '--url', url])).code).toBe(0);
  const done = await sup.waitForStatus(waiting.id, ['completed']);
  expect(done.metadata.auto_resume ?? null).toBeNull();
  expect(of(await sup.events(waiting.id), 'workflow_resumed')[0]?.data.auto).toBeUndefined();
  // The automatic resume stays queued for its hour, and will find no wait to end.
  expect((await sup.store.listRunJobs(waiting.id)).filter((j) => j.kind === 'resume_run' && j.status === 'queued')).toHaveLength(1);
});
