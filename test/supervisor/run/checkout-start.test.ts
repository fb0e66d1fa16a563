import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, onTestFinished } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';
import { git, registeredWidgetClone } from '../../api/codebases/git-fixtures.js';
import { startAnthropicServer } from '../../helpers/anthropic-server.js';
import { nodeTimeline, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/** checkoutStart: one sample per attempt, the invocation keeping its first attempt's (real git, real workers). */

let home: TempHome;
let clone: string;
let store: Store;
beforeEach(async () => {
  home = await makeTempHome();
  ({ clone, store } = await registeredWidgetClone(home, 'cairn-co-'));
});
afterEach(async () => {
  await home.close();
});

async function runToEnd(yaml: string, codebaseId: string | null): Promise<{ runId: string; events: Record<string, any>[] }> {
  const loaded = loadWorkflowText(yaml);
  if (!loaded.ok) throw new Error(loaded.error);
  const run = await store.createRun({
    id: randomUUID(), workflowName: loaded.workflow.name, conversationId: `conv-${randomUUID()}`,
    workingPath: codebaseId ? clone : null, codebaseId, userMessage: '', inputs: {}, metadata: {}, definition: loaded.workflow,
  });
  await waitFor(async () => ['completed', 'failed'].includes((await store.getRun(run.id))!.status), { what: 'the run to end' });
  return { runId: run.id, events: (await store.listRunEvents(run.id)) as Record<string, any>[] };
}

it('samples a clean worktree, then a dirty one on the retry; the invocation keeps the first sample', async () => {
  await startSupervisor(home);
  // Attempt 1 dirties the worktree (one staged, one modified, one untracked file) and fails; attempt 2 succeeds.
  const yaml = `name: dirty
description: dirties its worktree, then retries
nodes:
  - id: a
    bash: "if [ -e new.txt ]; then echo ok; else echo staged > staged.txt; git add staged.txt; echo more >> README.md; echo x > new.txt; exit 1; fi"
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`;
  const { runId, events } = await runToEnd(yaml, 'acme/widget');
  const head = git(clone, 'rev-parse', 'HEAD').trim();
  const tree = git(clone, 'rev-parse', 'HEAD^{tree}').trim();
  const started = events.filter((e) => e.event_type === 'node_started').map((e) => e.data.execution);
  expect(started).toHaveLength(2);
  const [first, second] = started;
  expect(first.attempt.checkoutStart).toMatchObject({ kind: 'git', commit: head, tree, worktree: { status: 'clean' } });
  expect(first.invocation.checkoutStart).toEqual(first.attempt.checkoutStart);
  const dirty = second.attempt.checkoutStart;
  expect(dirty).toMatchObject({
    kind: 'git', commit: head, tree,
    worktree: { status: 'dirty', content: 'complete', staged: 1, unstaged: 1, untracked: 1, manifest: { entries: 3 } },
  });
  // The retry keeps the invocation's first sample, not its own.
  expect(second.invocation.checkoutStart).toEqual(first.attempt.checkoutStart);
  // The manifest is a run artifact whose hash the record carries.
  const pointer = dirty.worktree.manifest.pointer;
  expect(pointer).toMatchObject({ type: 'service_artifact', run_id: runId });
  const text = await readFile(join(home.paths.workspaces, 'acme', 'widget', 'artifacts', 'runs', runId, pointer.path), 'utf8');
  expect(createHash('sha256').update(text).digest('hex')).toBe(dirty.worktree.manifest.sha256);
  expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).path).sort()).toEqual(['README.md', 'new.txt', 'staged.txt']);
  // The terminal record carries the same samples.
  const completed = events.find((e) => e.event_type === 'node_completed')!.data.execution;
  expect(completed.attempt.checkoutStart).toEqual(dirty);
});

it('samples a run without a codebase in its scratch folder as not_git', async () => {
  await startSupervisor(home);
  const { events } = await runToEnd('name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n', null);
  const started = events.find((e) => e.event_type === 'node_started')!.data.execution;
  expect(started.attempt.checkoutStart).toMatchObject({ kind: 'not_git' });
});

it('samples a plain cwd inside a repository (not a registered codebase, a subfolder) as git', async () => {
  await startSupervisor(home);
  const sub = join(clone, 'docs');
  await mkdir(sub);
  const loaded = loadWorkflowText('name: sub\ndescription: s\nnodes:\n  - id: a\n    bash: "true"\n');
  if (!loaded.ok) throw new Error(loaded.error);
  const run = await store.createRun({
    id: randomUUID(), workflowName: 'sub', conversationId: `conv-${randomUUID()}`, workingPath: sub, codebaseId: null,
    userMessage: '', inputs: {}, metadata: {}, definition: loaded.workflow,
  });
  await waitFor(async () => ['completed', 'failed'].includes((await store.getRun(run.id))!.status), { what: 'the run to end' });
  const started = (await store.listRunEvents(run.id)).find((e) => e.event_type === 'node_started')! as Record<string, any>;
  expect(started.data.execution.attempt.checkoutStart).toMatchObject({ kind: 'git', commit: git(clone, 'rev-parse', 'HEAD').trim() });
});

// Contract, invocation: "The invocation's observation is taken at its first attempt; later attempts
// and resumed continuations retain it."
it('an AI node retried after a rate limit keeps its invocation checkoutStart on every later row', async () => {
  const server = await startAnthropicServer((_req, i) =>
    i === 0
      ? { kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '1' } }
      : { kind: 'stream', blocks: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1, output_tokens: 1 } },
  );
  onTestFinished(() => server.close());
  const sup = await startSupervisor(home, { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  const run = await sup.createRun(`name: ai-retry-checkout
description: rate limited once
provider: anthropic
nodes:
  - id: ask
    prompt: hi
`);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await sup.events(run.id);
  expect(nodeTimeline(events)).toEqual(['node_started:ask', 'node_failed:ask', 'node_started:ask', 'node_completed:ask']);
  const records = events.filter((e) => e.step_name === 'ask' && e.event_type !== 'agent_text').map((e) => e.data.execution);
  expect(new Set(records.map((r) => r.invocation.id)).size).toBe(1);
  const first = records[0]!;
  expect(first.invocation.checkoutStart).toBeDefined();
  // Every later row of the same invocation (the failure, the retry's start and completion) keeps it.
  for (const r of records.slice(1)) expect(r.invocation.checkoutStart).toEqual(first.invocation.checkoutStart);
});

it('a bash node whose retry runs under a new supervisor keeps its invocation checkoutStart', async () => {
  const first = await startSupervisor(home, { id: 'sup-first' });
  const run = await first.createRun(`name: retry-across-restart-checkout
description: fails once, then succeeds
nodes:
  - id: flaky
    bash: "if [ -e .tried ]; then echo second; else touch .tried; exit 3; fi"
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`);
  await waitFor(async () => (await first.events(run.id)).some((e) => e.event_type === 'node_failed'), { what: 'the first attempt to fail' });
  await first.stop({ drain: false });

  const second = await startSupervisor(home, { id: 'sup-second' });
  expect((await second.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await second.events(run.id);
  expect(nodeTimeline(events)).toEqual(['node_started:flaky', 'node_failed:flaky', 'node_started:flaky', 'node_completed:flaky']);
  const records = events.filter((e) => e.step_name === 'flaky').map((e) => e.data.execution);
  expect(new Set(records.map((r) => r.invocation.id)).size).toBe(1);
  const original = records[0]!.invocation.checkoutStart;
  expect(original).toBeDefined();
  expect(records[2]!.invocation.checkoutStart).toEqual(original);
  expect(records[3]!.invocation.checkoutStart).toEqual(original);
});
