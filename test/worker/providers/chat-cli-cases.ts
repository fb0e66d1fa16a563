import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import type { ProviderAdapter } from '../../../src/worker/providers/provider-adapter.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../../helpers/openai-server.js';
import { agentTask, runAttempt, spawnProbe } from './agent-harness.js';
import { cliTestSetup, scriptedConnection, sharedAttempt } from './common/cli-test-setup.js';

/**
 * The cases every vendor CLI adapter that talks to a Chat Completions server (opencode, pi,
 * copilot) must pass, each against its real CLI: a streamed answer and what is recorded of it,
 * no usage from the server, a 401, a 429 with Retry-After, a hostile prompt, a cancel
 * mid-answer, a CLI that never speaks, a missing executable or model. Registered inside the
 * adapter's own `describe` by `chatCliAdapterCases`, with a per-test server and scratch folder.
 */
export interface ChatCliSpec {
  /** As the test titles name it: `OpenCode`, `Pi`, `Copilot`. */
  label: string;
  provider: NonNullable<Parameters<typeof agentTask>[1]['provider']>;
  adapter: ProviderAdapter;
  model: string;
  secret: string;
  /** A task for the adapter against a fresh local server answering `reply`. */
  task: (reply: (i: number) => ChatReply, overrides?: Parameters<typeof agentTask>[1]) => Promise<ReturnType<typeof agentTask>>;
  server: () => OpenAiServer;
  dir: () => string;
  /** One run of a hostile prompt against a server that sends no usage, read by two tests. */
  plainAnswer: () => Promise<Awaited<ReturnType<typeof runAttempt>> & { server: OpenAiServer; dir: string }>;
}

/** A prompt that would be a flag, or run commands, if it reached a command line or a shell. */
const HOSTILE = '-m evil --version\n"; touch pwned; echo "$(touch pwned2) `touch pwned3` \'quoted\'';

/** What differs between the CLIs in the cases of a streamed answer and of a missing executable. */
export interface ChatCliAdapterSpec extends Omit<ChatCliSpec, 'task' | 'server' | 'dir' | 'plainAnswer'> {
  /** The adapter's error when the configured executable is missing. */
  notFound: string;
  /** The session id the CLI makes. */
  sessionId: RegExp;
  /** Folders under HOME the CLI would write to if the adapter let it use the user's. */
  homeDirs: string[];
  /** The CLI passes each streamed delta on (else one text part of the whole answer). */
  streamsDeltas: boolean;
  /** The node's `systemPrompt` reaches the model (checked in the streamed answer's case). */
  systemPrompt: boolean;
}

/** Every case, with its own scratch folder and scripted Chat Completions server per test. */
export function chatCliAdapterCases(spec: ChatCliAdapterSpec): void {
  const cli = cliTestSetup({
    start: (reply: (i: number) => ChatReply) => startOpenAiServer((_req, i) => reply(i)),
    task: (server, dir) => ({ provider: spec.provider, model: spec.model, connection: scriptedConnection(server, spec.secret, dir) }),
  });
  // The CLI started once for two tests: each checks another thing of the same plain answer.
  const plainAnswer = sharedAttempt(async (dir, keep) => {
    const server = await startOpenAiServer(() => ({ kind: 'stream', deltas: ['ok'], usage: null }));
    keep(server);
    const task = agentTask(dir, { provider: spec.provider, model: spec.model, prompt: HOSTILE, connection: scriptedConnection(server, spec.secret, dir) });
    return { ...(await runAttempt(spec.adapter, task)), server };
  });
  const full: ChatCliSpec = { ...spec, task: cli.task, server: cli.server, dir: cli.dir, plainAnswer };
  streamedAnswerCase(spec, full);
  chatCliCases(full);
  missingExecutableCase(spec, full);
}

function streamedAnswerCase(spec: ChatCliAdapterSpec, cli: ChatCliSpec): void {
  it('streams the answer; reports tokens (a zero stays zero), stop reason, the resolved model and the session; key only in the auth header', async () => {
    const answer = `from ${spec.provider}`;
    const task = await cli.task(() => ({
      kind: 'stream',
      model: `${spec.model}-2026-01-01`,
      deltas: ['hello ', answer],
      usage: { prompt_tokens: 20, completion_tokens: 0, total_tokens: 20, prompt_tokens_details: { cached_tokens: 5 } },
    }), spec.systemPrompt ? { systemPrompt: 'Answer as a release manager.' } : {});
    const probe = spawnProbe();
    const { outcome, chunks, spend } = await runAttempt(spec.adapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe(`hello ${answer}`);
    if (spec.streamsDeltas) expect(chunks.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text)).toEqual(['hello ', answer]);
    else expect(chunks.some((c) => c.type === 'text' && c.text === `hello ${answer}`)).toBe(true);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 20, output: 0, cacheRead: 5, total: 20 } });
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'stop' });
    expect(spend.numTurns).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(outcome.end.resolvedModel).toBe(`${spec.model}-2026-01-01`);
    expect(outcome.end.sessionId).toMatch(spec.sessionId);
    // Every line the real CLI printed was read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    // One call: the answer (no extra call to title the session).
    expect(cli.server().requests).toHaveLength(1);
    const body = cli.server().requests[0]!.body;
    expect(body.model).toBe(spec.model);
    if (spec.systemPrompt) expect(JSON.stringify(body.messages)).toContain('Answer as a release manager.');
    expect(cli.server().requests[0]!.headers.authorization).toBe(`Bearer ${spec.secret}`);
    expect(JSON.stringify({ chunks, outcome, spend })).not.toContain(spec.secret);
    for (const f of readdirSync(task.scratchDir, { recursive: true }) as string[]) {
      const path = join(task.scratchDir, f);
      if (existsSync(path) && statSync(path).isFile() && statSync(path).size < 5_000_000) {
        expect(readFileSync(path).toString('latin1')).not.toContain(spec.secret);
      }
    }
    for (const d of spec.homeDirs) expect(existsSync(join(cli.dir(), d))).toBe(false);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });
}

function missingExecutableCase(spec: ChatCliAdapterSpec, cli: ChatCliSpec): void {
  it("fails with the contract's error when the configured executable is missing, and asks for a model", async () => {
    let task = agentTask(cli.dir(), { provider: spec.provider, model: spec.model, connection: { binaryPath: join(cli.dir(), `no-such-${spec.provider}`) } });
    let { outcome, spend } = await runAttempt(spec.adapter, task);
    expect(outcome.error).toContain(spec.notFound);
    expect(outcome.failureKind).toBe('config');
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'not_applicable' });
    task = agentTask(cli.dir(), { provider: spec.provider, connection: {} });
    ({ outcome } = await runAttempt(spec.adapter, task));
    expect(outcome.failureKind).toBe('config');
    expect(outcome.error).toMatch(new RegExp(`${spec.label} needs a model`));
  });
}

/** Files under `dir` whose bytes contain `secret`. */
export function filesHolding(dir: string, secret: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => {
    const path = join(dir, f);
    return statSync(path).isFile() && readFileSync(path).toString('latin1').includes(secret);
  });
}

function chatCliCases(spec: ChatCliSpec): void {
  it(`continues the session an earlier attempt left, and starts cold when ${spec.label} no longer has it`, async () => {
    const answers = ['noted: heron', 'it was heron', 'fresh start'];
    const task = await spec.task((i) => ({ kind: 'stream', deltas: [answers[i] ?? 'more'] }), {
      prompt: 'remember the word heron',
      sessionDir: join(spec.dir(), 'node-session'),
    });
    const first = await runAttempt(spec.adapter, task);
    expect(first.outcome.status).toBe('completed');
    expect(first.outcome.end.sessionOrigin).toBeUndefined();
    const sessionId = first.outcome.end.sessionId!;
    expect(sessionId).toBeTruthy();

    const resumed = await runAttempt(spec.adapter, { ...task, scratchDir: join(spec.dir(), 'attempt-2'), prompt: 'which word was it?', resumeSessionId: sessionId });
    expect(resumed.outcome.status).toBe('completed');
    expect(resumed.outcome.end.sessionOrigin).toBe('resumed');
    expect(resumed.outcome.output).toBe('it was heron');
    // The model was sent the earlier turn: the session really continued.
    const continued = JSON.stringify(spec.server().requests.at(-1)!.body.messages);
    expect(continued).toContain('remember the word heron');
    expect(continued).toContain('noted: heron');
    expect(continued).toContain('which word was it?');

    const probe = spawnProbe();
    const cold = await runAttempt(spec.adapter, { ...task, scratchDir: join(spec.dir(), 'attempt-3'), prompt: 'start over', resumeSessionId: randomUUID() }, { onSpawned: probe.onSpawned });
    expect(cold.outcome.status).toBe('completed');
    expect(cold.outcome.end.sessionOrigin).toBe('resume-failed-cold');
    expect(cold.outcome.output).toBe('fresh start');
    expect(JSON.stringify(spec.server().requests.at(-1)!.body.messages)).not.toContain('heron');
    for (const pid of probe.pids) expect(isProcessGroupAlive(pid)).toBe(false);
    // The node's home outlives its attempts: no file in it holds the key.
    expect(filesHolding(join(spec.dir(), 'node-session'), spec.secret)).toEqual([]);
    // Three runs of the CLI in one test: OpenCode's took 49 s here under other work's load, and
    // more than the default 60 s under heavier load.
  }, 180_000);

  it(`records tokens as not reported when the server sends no usage (never zeros ${spec.label} fills in)`, async () => {
    const { outcome, spend } = await spec.plainAnswer();
    expect(outcome.status).toBe('completed');
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
  });

  it('fails a 401 at once with class auth, never retried, after one request', async () => {
    const task = await spec.task(() => ({ kind: 'error', status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided' }));
    const probe = spawnProbe();
    const { outcome, spend } = await runAttempt(spec.adapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('failed');
    expect(outcome.providerFailure?.class).toBe('auth');
    expect(outcome.providerFailure?.evidence).toMatch(/HTTP 401 invalid_api_key/);
    expect(outcome.failureKind).toBe('fatal');
    expect(outcome.retryable).toBe(false);
    expect(spec.server().requests).toHaveLength(1);
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
    expect(JSON.stringify(outcome)).not.toContain(spec.secret);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it(`stops ${spec.label}'s own retries: a 429 fails rate_limited with the server's Retry-After, after one request`, async () => {
    const task = await spec.task(() => ({ kind: 'error', status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached', headers: { 'retry-after': '7' } }));
    const probe = spawnProbe();
    const { outcome } = await runAttempt(spec.adapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('rate_limited');
    expect(outcome.providerFailure).toMatchObject({ class: 'rate_limited', retryAfterMs: 7000 });
    expect(spec.server().requests).toHaveLength(1);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('passes a hostile prompt on stdin: never a flag, never shell text', async () => {
    const { outcome, server, dir } = await spec.plainAnswer();
    expect(outcome.status).toBe('completed');
    const messages = server.requests[0]!.body.messages as { role: string; content: unknown }[];
    const user = messages.filter((m) => m.role === 'user').at(-1);
    expect(JSON.stringify(user?.content)).toContain(JSON.stringify(HOSTILE).slice(1, -1));
    expect(server.requests[0]!.body.model).toBe(spec.model);
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(dir, f))).toBe(false);
  });

  it('leaves no process when cancelled while the model is answering', async () => {
    const controller = new AbortController();
    const task = await spec.task(() => {
      controller.abort('cancelled');
      return { kind: 'hang' };
    });
    const probe = spawnProbe();
    const { outcome } = await runAttempt(spec.adapter, task, { signal: controller.signal, onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('cancelled');
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('kills the process tree of an executable that never speaks (first-event watchdog)', async () => {
    const silent = join(spec.dir(), `silent-${spec.provider}`);
    writeFileSync(silent, '#!/bin/sh\nsleep 60 &\nsleep 60\n');
    chmodSync(silent, 0o755);
    const task = agentTask(spec.dir(), { provider: spec.provider, model: spec.model, connection: { binaryPath: silent }, firstEventTimeoutMs: 300 });
    const probe = spawnProbe();
    const { outcome } = await runAttempt(spec.adapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.failureKind).toBe('timeout');
    // The watchdog's kill (TERM, then KILL after the grace) is over before the attempt ends.
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });
}
