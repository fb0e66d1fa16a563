import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerTurn, staleCwdText } from '../../../src/conversations/chat/answer-turn.js';
import { createLogger } from '../../../src/shared/log.js';
import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { cloneLocally, git, makeBareRemote } from '../codebases/git-fixtures.js';
import { openSse } from '../../helpers/sse.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/** Chat turns with the real API and a real supervisor: slash commands, FIFO turns, the stale cwd refusal. */

let home: TempHome;
let t: TestApp;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: Echoes\nnodes:\n  - id: a\n    bash: echo hi\n');
});
afterEach(async () => {
  await home.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function newConversation(): Promise<string> {
  return ((await (await post('/api/conversations', {})).json()) as { conversationId: string }).conversationId;
}

/** Sends a message and waits for its assistant reply (the n-th assistant message). */
async function ask(id: string, message: string): Promise<string> {
  const before = (await t.store.listMessages((await t.store.getConversation(id))!.id, 500)).filter((m) => m.role === 'assistant').length;
  expect((await post(`/api/conversations/${id}/message`, { message })).status).toBe(200);
  const replies = await waitFor(async () => {
    const all = (await t.store.listMessages((await t.store.getConversation(id))!.id, 500)).filter((m) => m.role === 'assistant');
    return all.length > before ? all : undefined;
  });
  return replies.at(-1)!.content;
}

async function assistantTexts(id: string): Promise<string[]> {
  const messages = await t.store.listMessages((await t.store.getConversation(id))!.id, 500);
  return messages.filter((m) => m.role === 'assistant').map((m) => m.content);
}

async function registerFolder(id: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-chat-project-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  await t.store.registerCodebase({
    id, name: id, repository_url: null, default_cwd: dir, default_branch: null, kind: 'folder', managed: false,
    env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
  });
  return dir;
}

describe('chat turns', () => {
  it('queues turns of one conversation FIFO, one at a time, visible in /api/health until answered', async () => {
    const id = await newConversation();
    const statuses = [];
    for (const message of ['/help', '/status', 'hello']) statuses.push(((await (await post(`/api/conversations/${id}/message`, { message })).json()) as { status: string }).status);
    expect(statuses).toEqual(['started', 'queued-conversation', 'queued-conversation']);
    const health = (await (await fetch(`${url}/api/health`)).json()) as { concurrency: Record<string, unknown> };
    expect(health.concurrency).toMatchObject({ queuedTotal: 3, queuedByConversation: { [id]: 3 }, activeConversationIds: [], maxConcurrent: 10 });

    const sse = await openSse(`${url}/api/stream/${id}?lastEventId=0`);
    home.defer(() => sse.close());
    await startSupervisor(home);
    const locks = () => sse.frames.filter((f) => f.data.type === 'conversation_lock').map((f) => f.data.locked);
    await sse.until(() => locks().length === 6);
    expect(locks()).toEqual([true, false, true, false, true, false]);
    const texts = sse.frames.filter((f) => f.data.type === 'text').map((f) => f.data.content as string);
    expect(texts[0]).toContain('/workflow list');
    expect(texts[1]).toContain(`Conversation: ${id}`);
    expect(texts[2]).toContain('ANTHROPIC_API_KEY');
    const messages = await t.store.listMessages((await t.store.getConversation(id))!.id, 50);
    expect(messages.map((m) => m.role)).toEqual(['user', 'user', 'user', 'assistant', 'assistant', 'assistant']);
    // The dashboard stream carries run events only, never chat frames.
    const dashboard = await openSse(`${url}/api/stream/__dashboard__?lastEventId=0`);
    home.defer(() => dashboard.close());
    await dashboard.until((frames) => frames.length >= 1);
    expect(dashboard.frames.every((f) => f.data.type === 'heartbeat')).toBe(true);
  });

  it('answers plain messages with how to configure a provider, and unknown commands with /help', async () => {
    await startSupervisor(home);
    const id = await newConversation();
    const plain = await ask(id, 'please fix the tests');
    expect(plain).toContain('ANTHROPIC_API_KEY');
    expect(plain).toContain('docs/conversations.md');
    expect(await ask(id, "/nope'; DROP TABLE messages; --")).toContain('Unknown command');
  });

  it('/setproject binds by id or name and clears the override; /worktree list and remove', async () => {
    await startSupervisor(home);
    const id = await newConversation();
    expect(await ask(id, '/setproject nothing')).toContain("No registered project named 'nothing'");
    const dir = await registerFolder('acme/app');
    expect(await ask(id, '/setproject ACME/APP')).toBe(`Project set to **acme/app** (${dir}).`);
    expect(await t.store.getConversation(id)).toMatchObject({ codebase_id: 'acme/app', cwd: null });
    expect(await ask(id, '/worktree remove')).toBe('This conversation is not using a worktree.');
    expect(await ask(id, '/worktree list')).toBe('No worktrees for **acme/app**.');

    await t.store.createIsolationEnvironment({
      id: 'env-1', codebase_id: 'acme/app', workflow_type: 'thread', workflow_id: id, provider: 'worktree',
      working_path: join(dir, 'wt'), branch_name: 'cairn/thread', created_by_platform: 'web', metadata: {},
    });
    await t.store.updateConversation(id, { isolation_env_id: 'env-1' });
    expect(await ask(id, '/worktree list')).toContain('env-1 (this conversation)');
    const removed = await ask(id, '/worktree remove');
    expect(removed).toContain('Worktree env-1 is marked destroyed');
    expect((await t.store.listIsolationEnvironments('acme/app'))[0]?.status).toBe('destroyed');
    expect((await t.store.getConversation(id))?.isolation_env_id).toBeNull();
  });

  it('/worktree remove removes a real git worktree from disk and keeps its branch', async () => {
    await startSupervisor(home);
    const root = await mkdtemp(join(tmpdir(), 'cairn-chat-git-'));
    home.defer(() => rm(root, { recursive: true, force: true }));
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'site'), 'site');
    expect((await post('/api/codebases', { path: clone })).status).toBe(201);
    const worktree = join(root, 'wt-thread');
    git(clone, 'worktree', 'add', '-q', '-b', 'cairn/thread', worktree);
    const id = await newConversation();
    await t.store.createIsolationEnvironment({
      id: 'env-git', codebase_id: 'acme/site', workflow_type: 'thread', workflow_id: id, provider: 'worktree',
      working_path: worktree, branch_name: 'cairn/thread', created_by_platform: 'web', metadata: {},
    });
    await t.store.updateConversation(id, { codebase_id: 'acme/site', isolation_env_id: 'env-git' });
    const removed = await ask(id, '/worktree remove');
    expect(removed).toContain(`Its checkout at ${worktree} was removed (the branch cairn/thread is kept).`);
    expect(existsSync(worktree)).toBe(false);
    expect(git(clone, 'worktree', 'list')).not.toContain('wt-thread');
    expect(git(clone, 'branch', '--list', 'cairn/thread')).toContain('cairn/thread');
  });

  it('refuses a turn whose working directory is gone: nothing written, nothing changed; /setproject recovers', async () => {
    await startSupervisor(home);
    await registerFolder('acme/app');
    const id = await newConversation();
    const gone = join(home.home, 'no-longer-here');
    await t.store.updateConversation(id, { codebase_id: 'acme/app', cwd: gone, isolation_env_id: 'env-x' });
    const before = await t.store.getConversation(id);

    const sse = await openSse(`${url}/api/stream/${id}`);
    home.defer(() => sse.close());
    for (const message of ['hello', '/workflow run plain', '/status']) {
      const count = sse.frames.filter((f) => f.data.type === 'text').length;
      await post(`/api/conversations/${id}/message`, { message });
      await sse.until((frames) => frames.filter((f) => f.data.type === 'text').length > count);
      expect(sse.frames.filter((f) => f.data.type === 'text').at(-1)!.data.content).toBe(staleCwdText(gone));
    }
    await sse.until((frames) => frames.filter((f) => f.data.type === 'conversation_lock' && f.data.locked === false).length === 3);
    const messages = await t.store.listMessages(before!.id, 50);
    expect(messages.map((m) => m.role)).toEqual(['user', 'user', 'user']);
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
    const after = await t.store.getConversation(id);
    expect({ ...after, last_activity_at: null, updated_at: null, title: null }).toEqual({ ...before, last_activity_at: null, updated_at: null, title: null });

    expect(await ask(id, '/setproject acme/app')).toContain('Project set to **acme/app**');
    expect(await t.store.getConversation(id)).toMatchObject({ cwd: null, isolation_env_id: null });
    expect(await ask(id, '/help')).toContain('/workflow list');
  });

  it('logs orchestrator.conversation_cwd_missing with conversation id, path and isolation environment id', async () => {
    const lines: string[] = [];
    const log = createLogger({ name: 'supervisor', level: 'warn', destination: { write: (line: string) => lines.push(line) } });
    const conversation = { ...(await t.store.createConversation({ id: 'c1', platform_type: 'web', platform_conversation_id: 'web-1-abc', codebase_id: null, hidden: false })), cwd: '/nowhere/at-all', isolation_env_id: 'env-9' };
    const catalog = WorkflowCatalog.forHome(home.home, { threadFile: null });
    const reply = await answerTurn({ store: t.store, catalog, clock: Date.now, log }, { conversation, text: '/help' });
    expect(reply).toEqual({ content: "This conversation's working directory no longer exists: /nowhere/at-all", persist: false });
    const event = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'orchestrator.conversation_cwd_missing');
    expect(event).toMatchObject({ conversationId: 'web-1-abc', path: '/nowhere/at-all', isolationEnvId: 'env-9' });
  });

  it('/workflow list, run (hidden worker conversation, dispatch then result), status, cancel, and refusals by status', async () => {
    await startSupervisor(home);
    const id = await newConversation();
    expect(await ask(id, '/workflow list')).toContain('**plain**');
    expect(await ask(id, '/workflow run does-not-exist')).toContain("Cannot run workflow 'does-not-exist'");
    const sse = await openSse(`${url}/api/stream/${id}`);
    home.defer(() => sse.close());
    expect(await ask(id, '/workflow run plain ship it')).toBe('🚀 Dispatching workflow: **plain** (background)');
    await sse.until((frames) => frames.some((f) => f.data.type === 'workflow_dispatch'));
    const dispatch = sse.frames.find((f) => f.data.type === 'workflow_dispatch')!.data;
    expect(dispatch).toMatchObject({ workflowName: 'plain' });
    expect(dispatch.workerConversationId).toMatch(/^web-worker-\d+-[a-z0-9]{6}$/);
    expect(await t.store.getConversation(dispatch.workerConversationId)).toMatchObject({ hidden: true });

    const byWorker = (await (await fetch(`${url}/api/workflows/runs/by-worker/${dispatch.workerConversationId}`)).json()) as { run: { id: string; user_message: string; metadata: Record<string, unknown> } };
    expect(byWorker.run).toMatchObject({ user_message: 'ship it', metadata: { parent_conversation_id: id } });

    await sse.until((frames) => frames.some((f) => f.data.type === 'text' && f.data.category === 'workflow_result'));
    const result = sse.frames.find((f) => f.data.category === 'workflow_result')!.data;
    expect(result.workflowResult).toEqual({ workflowName: 'plain', runId: byWorker.run.id });
    expect(result.content).toContain('completed');
    const last = (await t.store.listMessages((await t.store.getConversation(id))!.id, 1))[0]!;
    expect(JSON.parse(last.metadata)).toMatchObject({ category: 'workflow_result', workflowResult: { runId: byWorker.run.id } });

    expect(await ask(id, '/workflow status')).toBe('No workflows running for this conversation.');
    expect(await ask(id, `/workflow cancel ${byWorker.run.id}`)).toBe("Cannot cancel workflow in 'completed' status");
    expect(await ask(id, '/workflow cancel nope')).toBe('Workflow run not found: nope');
    expect(await ask(id, `/workflow resume ${byWorker.run.id}`)).toBe("Cannot resume workflow in 'completed' status");
    expect(await ask(id, `/workflow abandon ${byWorker.run.id}`)).toBe(
      "Cannot abandon run with status 'completed'. Only running, paused, or failed runs can be abandoned.",
    );
    expect(await ask(id, `/workflow approve ${byWorker.run.id}`)).toBe("Cannot approve workflow in 'completed' status");
    expect(await ask(id, `/workflow reject ${byWorker.run.id} no`)).toBe("Cannot reject workflow in 'completed' status");
    expect(await ask(id, '/workflow resume')).toBe('Usage: /workflow resume <run id>');
    expect(await ask(id, `/workflow resume ${byWorker.run.id} --force`)).toBe('Usage: /workflow resume <run id> [--reload]');
  });

  it('/workflow run with a NUL byte in the message answers the run route’s refusal and queues no run that can only fail', async () => {
    await startSupervisor(home);
    const id = await newConversation();
    expect(await ask(id, '/workflow run plain x\u0000y')).toBe("Cannot run workflow 'plain': message must not contain a NUL byte (\\u0000)");
    const { runs } = (await (await fetch(`${url}/api/workflows/runs?limit=200&workflow=plain`)).json()) as { runs: Record<string, any>[] };
    const withNul = runs.filter((r) => String(r.user_message).includes('\u0000'));
    expect(withNul.map((r) => ({ status: r.status, error: r.error }))).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('/workflow approve, reject, resume and abandon carry out what the run routes do', async () => {
    await startSupervisor(home);
    const control = join(home.home, 'may-pass');
    await writeHomeWorkflow(home, 'gated', `name: gated
description: a gate, then work that fails until a control file exists
nodes:
  - id: review
    approval:
      message: "Go?"
      capture_response: true
  - id: work
    depends_on: [review]
    bash: 'test -e "${control}" && printf "%s" "$review.output"'
`);
    const id = await newConversation();
    const sse = await openSse(`${url}/api/stream/${id}`);
    home.defer(() => sse.close());
    await ask(id, '/workflow run gated');
    await sse.until((frames) => frames.some((f) => f.data.type === 'workflow_dispatch'));
    const worker = sse.frames.find((f) => f.data.type === 'workflow_dispatch')!.data.workerConversationId as string;
    const runId = ((await (await fetch(`${url}/api/workflows/runs/by-worker/${worker}`)).json()) as { run: { id: string } }).run.id;
    const statusOf = async () => (await t.store.getRun(runId))!.status;
    await waitFor(async () => (await statusOf()) === 'paused', { what: 'the run to pause at its gate' });

    // The comment is hostile text: it reaches the shell body only through the environment.
    const comment = `ok "$(touch ${join(home.home, 'pwned')})" 'x'`;
    await ask(id, `/workflow approve ${runId} ${comment}`);
    expect(await assistantTexts(id)).toContain(`Approved gate 'review' of workflow run ${runId} (**gated**).`);
    await waitFor(async () => (await statusOf()) === 'failed', { what: 'the work node to fail' });
    await writeFile(control, '');
    // --reload takes the workflow's files as they are now: the run says so with workflow_reloaded.
    await ask(id, `/workflow resume ${runId} --reload`);
    expect(await assistantTexts(id)).toContain(`Resuming workflow run ${runId} (**gated**): nodes that already succeeded are not run again.`);
    await waitFor(async () => (await statusOf()) === 'completed', { what: 'the resumed run to complete' });
    const events = await t.store.listRunEvents(runId);
    expect(events.filter((e) => e.event_type === 'workflow_reloaded')).toHaveLength(1);
    expect(events.filter((e) => e.event_type === 'node_completed' && e.step_name === 'work').map((e) => e.data.node_output)).toEqual([comment]);
    expect(existsSync(join(home.home, 'pwned'))).toBe(false);

    await ask(id, '/workflow run gated');
    const second = await waitFor(async () => (await t.store.listRuns({ limit: 10 })).find((r) => r.id !== runId && r.status === 'paused'), {
      what: 'a second run to pause',
    });
    // A run's workflow_result message may land right after the answer: look among the replies.
    await ask(id, `/workflow reject ${second.id} not now`);
    expect(await assistantTexts(id)).toContain(`Rejected gate 'review' of workflow run ${second.id} (**gated**).`);
    await waitFor(async () => (await t.store.getRun(second.id))!.status === 'cancelled', { what: 'the rejected run to end cancelled' });

    await ask(id, '/workflow run gated');
    const third = await waitFor(async () => (await t.store.listRuns({ limit: 10 })).find((r) => r.id !== runId && r.id !== second.id && r.status === 'paused'), {
      what: 'a third run to pause',
    });
    await ask(id, `/workflow abandon ${third.id}`);
    expect(await assistantTexts(id)).toContain(`Abandoning workflow run ${third.id} (**gated**): it ends cancelled.`);
    await waitFor(async () => (await t.store.getRun(third.id))!.status === 'cancelled', { what: 'the abandoned run to end cancelled' });
  });
});
