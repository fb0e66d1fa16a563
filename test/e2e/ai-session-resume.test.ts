import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../helpers/openai-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * A retry continues the provider session its failed attempt left: the real supervisor, the real
 * Claude Code CLI against a local Messages API server. The first attempt stalls and is killed
 * by the idle watchdog; the second is started with `--resume`, so the provider sees the first
 * attempt's prompt again, and its record says `sessionOrigin: resumed`. With `context: fresh`
 * the retry starts a new session.
 *
 * The same for a CLI on a Chat Completions server, the real Pi CLI: the first attempt's model
 * asks for a tool, Pi runs it, and the next call stalls until the idle watchdog kills it; the
 * retry continues that session (`pi --session <id>`, in the home the node keeps under the run's
 * artifacts). Pi writes a session only once the model has answered once: an attempt stopped
 * before that is retried cold (`resume-failed-cold`).
 */

const cli = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/cli.js');
let home: TempHome;
let server: AnthropicServer | OpenAiServer;
/** The `cairn serve` the tests of a group share, and where the current test's provider requests begin. */
let shared: RunningServer;
let firstRequest = 0;
async function closeHome(): Promise<void> {
  await home.close();
  await server?.close();
}

const userTurns = (body: any) => (body.messages as { role: string }[]).filter((m) => m.role === 'user').length;

/** Whether the current test's first Messages request for the ticket has stalled yet. */
let stalled = false;

/** A Messages server and a `cairn serve` running the Claude Code CLI against it, shared by the tests of a group. */
async function startClaudeGroup(): Promise<void> {
  home = await makeTempHome();
  // The first Messages request of each test stalls after its first event; every later one answers.
  server = await startAnthropicServer((req): MessagesReply => {
    if (!stalled && JSON.stringify(req.body.messages).includes('summarise the ticket')) {
      stalled = true;
      return { kind: 'stream', blocks: [{ type: 'text', text: 'partial' }], stallAfterFirst: true };
    }
    return { kind: 'stream', blocks: [{ type: 'text', text: 'summary' }], usage: { input_tokens: 3, output_tokens: 1 } };
  });
  const cliHome = await mkdtemp(join(tmpdir(), 'cairn-claude-home-'));
  home.defer(() => rm(cliHome, { recursive: true, force: true }));
  shared = await startServer(home, {
    ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-resume', CLAUDE_BIN_PATH: cli, HOME: cliHome,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
  });
}

/** The provider requests the current test made. */
const requestsOfTest = () => server.requests.slice(firstRequest);

async function runStallingThenAnswering(context: string) {
  stalled = false;
  firstRequest = server.requests.length;
  // A workflow of the test's own name: the two tests' workflows differ.
  const name = context ? 'resumable-fresh' : 'resumable';
  await writeHomeWorkflow(home, name, `name: ${name}
description: one AI step that stalls once
provider: claude
nodes:
  - id: summarise
    prompt: "summarise the ticket"
    idle_timeout: 3000
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
${context}`);
  return runToItsEnd(shared.url, name);
}

/** Runs the `name` workflow to its end; its node's terminal records, in order, and the session origin each start record gave. */
async function runToItsEnd(url: string, name = 'resumable') {
  const { runId } = await startRun(url, name);
  const done = await waitFor(async () => {
    const detail = await getRun(url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 90_000 });
  const records = done.events
    .filter((e) => e.step_name === 'summarise' && ['node_failed', 'node_completed'].includes(e.event_type))
    .map((e) => e.data.execution);
  const startOrigins = done.events
    .filter((e) => e.step_name === 'summarise' && e.event_type === 'node_started')
    .map((e) => e.data.execution.binding.sessionOrigin);
  return { done, records, startOrigins };
}



/**
 * A server answering `first` in order, then 'summary' to every call, and `cairn serve` with the
 * `resumable` workflow: one Pi step with a 3 s idle timeout and `max_attempts` attempts.
 */
async function startPi(first: ChatReply[], maxAttempts: number) {
  const chat = await startOpenAiServer((_req, i): ChatReply => first[i] ?? { kind: 'stream', deltas: ['summary'] });
  server = chat;
  const api = await startServer(home, { OPENAI_BASE_URL: chat.url });
  await writePiWorkflow(maxAttempts);
  return { chat, api };
}

/** The replies the shared Chat Completions server gives first in the current test, in order. */
let piFirst: ChatReply[] = [];

/** A Chat Completions server and a `cairn serve` on it, shared by the tests of a group. */
async function startPiGroup(): Promise<void> {
  home = await makeTempHome();
  const chat = await startOpenAiServer((_req, i): ChatReply => piFirst[i - firstRequest] ?? { kind: 'stream', deltas: ['summary'] });
  server = chat;
  shared = await startServer(home, { OPENAI_BASE_URL: chat.url });
  await writePiWorkflow(2);
}

function writePiWorkflow(maxAttempts: number): Promise<void> {
  return writeHomeWorkflow(home, 'resumable', `name: resumable
description: one Pi step that stalls once
provider: pi
model: pi-test
nodes:
  - id: summarise
    prompt: "summarise the ticket"
    idle_timeout: 3000
    retry: { max_attempts: ${maxAttempts}, delay_ms: 1000, on_error: all }
`);
}

/** Runs `resumable` (two attempts) on the shared server, answering `first` first; `chat` holds the requests of this run only. */
async function runPiStallingOnce(first: ChatReply[]) {
  piFirst = first;
  firstRequest = server.requests.length;
  const { done, records, startOrigins } = await runToItsEnd(shared.url);
  expect(done.run.status).toBe('completed');
  const chat = { requests: (server as OpenAiServer).requests.slice(firstRequest) };
  return { chat, startOrigins, outcomes: records.map((r) => [r.lifecycle.status, r.lifecycle.failureKind, r.binding.sessionOrigin]) };
}

// One Messages server and one `cairn serve` for both Claude tests: each runs a workflow of its own
// name and looks only at the requests and the session row of its own run.
describe('claude CLI', () => {
  beforeAll(startClaudeGroup);
  afterAll(closeHome);

  it('resumes the failed attempt\'s session on the retry, then keeps it only as a completed session (no retry of its own continues it)', async () => {
    const { done, records, startOrigins } = await runStallingThenAnswering('');
    expect(done.run.status).toBe('completed');
    expect(records.map((r) => [r.lifecycle.status, r.lifecycle.failureKind, r.binding.sessionOrigin])).toEqual([
      ['failed', 'timeout', 'fresh'],
      ['completed', undefined, 'resumed'],
    ]);
    // The retry's start record already says it continues a session (the intent).
    expect(startOrigins).toEqual(['fresh', 'resumed']);
    // The retry's request carries the first attempt's turn, then its own.
    const answered = requestsOfTest().filter((r) => JSON.stringify(r.body.messages).includes('summarise the ticket'));
    expect(userTurns(answered.at(-1)!.body)).toBeGreaterThan(userTurns(answered[0]!.body));
    const db = new Database(home.paths.database, { readonly: true });
    // Kept for nodes that continue it (context: shared / resume); a re-run of this node starts fresh (agent-session.test.ts).
    expect(db.prepare('SELECT completed FROM run_node_sessions WHERE run_id = ?').all(done.run.id)).toEqual([{ completed: 1 }]);
    db.close();
  });

  it('starts the retry in a new session when the node asks for a fresh context', async () => {
    const { done, records } = await runStallingThenAnswering('    context: fresh\n');
    expect(done.run.status).toBe('completed');
    expect(records.map((r) => r.binding.sessionOrigin)).toEqual(['fresh', 'fresh']);
    const answered = requestsOfTest().filter((r) => JSON.stringify(r.body.messages).includes('summarise the ticket'));
    expect(userTurns(answered.at(-1)!.body)).toBe(userTurns(answered[0]!.body));
  });
});

// One Chat Completions server and one `cairn serve` for both Pi tests: each scripts the replies
// its own run gets first and looks only at the requests of that run.
describe('pi', () => {
  beforeAll(startPiGroup);
  afterAll(closeHome);

  it("continues the failed attempt's Pi session on the retry", async () => {
    const { chat, outcomes, startOrigins } = await runPiStallingOnce([
      { kind: 'stream', deltas: [], toolCalls: [{ id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: 'echo looked-at-the-ticket' }) }] },
      { kind: 'stream', deltas: ['partial'], stallAfterFirst: true },
    ]);
    expect(outcomes).toEqual([
      ['failed', 'timeout', 'fresh'],
      ['completed', undefined, 'resumed'],
    ]);
    // The retry's start record already says it continues a session (the intent).
    expect(startOrigins).toEqual(['fresh', 'resumed']);
    // The retry's call carries the first attempt's turns: the prompt, the tool call and its output.
    const retried = JSON.stringify(chat.requests.at(-1)!.body.messages);
    expect(retried).toContain('summarise the ticket');
    expect(retried).toContain('call_1');
    expect(retried).toContain('looked-at-the-ticket');
    expect(userTurns(chat.requests.at(-1)!.body)).toBeGreaterThan(userTurns(chat.requests[0]!.body));
  });

  it('retries cold when the failed attempt was stopped before Pi saved its session', async () => {
    const { chat, outcomes, startOrigins } = await runPiStallingOnce([{ kind: 'stream', deltas: ['partial'], stallAfterFirst: true }]);
    expect(outcomes).toEqual([
      ['failed', 'timeout', 'fresh'],
      ['completed', undefined, 'resume-failed-cold'],
    ]);
    // The retry starts as resuming; Pi refuses the session and is run again cold, with a start
    // record of its own for the new process that says so.
    expect(startOrigins).toEqual(['fresh', 'resumed', 'resume-failed-cold']);
    expect(userTurns(chat.requests.at(-1)!.body)).toBe(userTurns(chat.requests[0]!.body));
  });
});

// Killing the supervisor leaves a server in take-over: the test gets a home and servers of its own.
describe('pi, on a server of its own', () => {
  beforeEach(async () => {
    home = await makeTempHome();
  });
  afterEach(closeHome);

  it('kill -9 of the supervisor while a resuming Pi attempt waits on the model: the take-over kills it, resumes the same session once more and completes the node once', async () => {
    const { chat, api } = await startPi([
      { kind: 'stream', deltas: [], toolCalls: [{ id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: 'echo looked-at-the-ticket' }) }] },
      { kind: 'stream', deltas: ['partial'], stallAfterFirst: true },
      { kind: 'hang' },
    ], 3);
    const { runId } = await startRun(api.url, 'resumable');
    // The retry, resuming attempt 1's session, is waiting on the model's answer (request 3).
    await waitFor(() => (chat.requests.length >= 3 ? true : undefined), { what: 'the resuming attempt to call the model', timeoutMs: 60_000 });
    const store = home.openStore();
    const started = await waitFor(async () => {
      const rows = (await store.listRunEvents(runId)).filter((e) => e.event_type === 'node_started' && e.step_name === 'summarise');
      return rows.length >= 2 && typeof rows.at(-1)!.data.pid === 'number' ? rows : undefined;
    }, { what: 'the resuming attempt to record its process group' });
    const orphan = started.at(-1)!.data.pid as number;
    const killed = await api.pid('supervisor');
    process.kill(killed, 'SIGKILL');

    const run = await waitFor(async () => {
      const r = await store.getRun(runId);
      return r && ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
    }, { what: 'the run to end after the take-over', timeoutMs: 90_000 });
    expect(run.status).toBe('completed');
    expect(await api.pid('supervisor')).not.toBe(killed);
    expect(isProcessGroupAlive(orphan)).toBe(false);

    const events = (await store.listRunEvents(runId)).filter((e) => e.step_name === 'summarise');
    expect(events.filter((e) => e.event_type === 'node_completed')).toHaveLength(1);
    // One node_started per attempt, with its process group.
    const startedIds = events.filter((e) => e.event_type === 'node_started').map((e) => (e.data.execution as { attempt: { id: string } }).attempt.id);
    expect(new Set(startedIds).size).toBe(startedIds.length);
    const last = events.find((e) => e.event_type === 'node_completed')!.data.execution as { binding: { sessionOrigin: string } };
    expect(last.binding.sessionOrigin).toBe('resumed');
    // The last call still carries attempt 1's turns, and no two model calls were ever open at once.
    const retried = JSON.stringify(chat.requests.at(-1)!.body.messages);
    expect(retried).toContain('call_1');
    expect(retried).toContain('looked-at-the-ticket');
    const spans = chat.requests.map((r) => [r.openedAt!, r.closedAt ?? Infinity]).sort((a, b) => a[0]! - b[0]!);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]!);
  });
});
