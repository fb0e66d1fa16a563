import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { CODEX_NOT_FOUND, codexAdapter } from '../../../../src/worker/providers/codex/adapter.js';
import { startResponsesServer, type ResponsesReply } from '../../../helpers/responses-server.js';
import { agentTask, runAttempt, spawnProbe } from '../agent-harness.js';
import { cliTestSetup, scriptedConnection, sharedAttempt } from '../common/cli-test-setup.js';
import { cliProcessCases } from '../cli-process-cases.js';

/**
 * The real Codex CLI (npm package @openai/codex, a devDependency whose native binary runs under
 * Node 20 here) driven by the real adapter, pointed at a local server that speaks the OpenAI
 * Responses API's streaming wire format.
 */

const SECRET = 'sk-codex-test-SECRET-4242';

const setup = cliTestSetup({
  start: (reply: (i: number) => ResponsesReply) => startResponsesServer((_req, i) => reply(i)),
  // HOME is the test's own: the adapter must never write to $HOME/.codex.
  task: (server, dir) => ({ provider: 'codex', model: 'gpt-5-test', connection: scriptedConnection(server, SECRET, dir) }),
});
const codexTask = setup.task;

/** A prompt that would be a flag, or run commands, if it reached a command line or a shell. */
const HOSTILE = '-m evil --version\n"; touch pwned; echo "$(touch pwned2) `touch pwned3` \'quoted\'';
// Codex started once for two tests: each checks another thing of the same plain answer.
const plainAnswer = sharedAttempt(async (dir, keep) => {
  const server = await startResponsesServer(() => ({ kind: 'stream', deltas: ['ok'], usage: null }));
  keep(server);
  const task = agentTask(dir, { provider: 'codex', model: 'gpt-5-test', prompt: HOSTILE, connection: scriptedConnection(server, SECRET, dir) });
  return { ...(await runAttempt(codexAdapter, task)), server };
});

describe('codex adapter (real Codex CLI)', () => {
  it('streams the answer; reports tokens (a zero stays zero), the resolved model and the session; key only in the auth header', async () => {
    const task = await codexTask(() => ({
      kind: 'stream',
      model: 'gpt-5-test-2026-01-01',
      deltas: ['hello ', 'from codex'],
      usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 5 }, output_tokens: 0, total_tokens: 20 },
    }));
    const probe = spawnProbe();
    const { outcome, chunks, spend } = await runAttempt(codexAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('hello from codex');
    expect(chunks.some((c) => c.type === 'text' && c.text === 'hello from codex')).toBe(true);
    // Every line the real CLI printed, and every line of its rollout, read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 20, output: 0, cacheRead: 5, total: 20 } });
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(spend.stopReason).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(spend.numTurns).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(outcome.end.resolvedModel).toBe('gpt-5-test-2026-01-01');
    expect(outcome.end.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(setup.server().requests).toHaveLength(1);
    expect(setup.server().requests[0]!.body.model).toBe('gpt-5-test');
    expect(setup.server().requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    // The key is in no chunk, no outcome, and no file of the attempt.
    expect(JSON.stringify({ chunks, outcome, spend })).not.toContain(SECRET);
    for (const f of readdirSync(task.scratchDir, { recursive: true }) as string[]) {
      const path = join(task.scratchDir, f);
      if (existsSync(path) && !path.endsWith('.sqlite') && isFile(path)) expect(readFileSync(path, 'utf8')).not.toContain(SECRET);
    }
    expect(existsSync(join(setup.dir(), '.codex'))).toBe(false);
    expect(probe.pids).toHaveLength(1);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('records tokens as not reported when the server sends no usage (not the zeros Codex prints)', async () => {
    const { outcome, spend } = await plainAnswer();
    expect(outcome.status).toBe('completed');
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
  });

  it('leaves out a cached count the server did not send', async () => {
    const task = await codexTask(() => ({ kind: 'stream', deltas: ['partial usage'], usage: { input_tokens: 9, output_tokens: 2 } }));
    const { spend } = await runAttempt(codexAdapter, task);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 9, output: 2 } });
  });

  it('fails a 401 at once with class auth, never retried, after one request', async () => {
    const task = await codexTask(() => ({ kind: 'error', status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided' }));
    const probe = spawnProbe();
    const { outcome, spend } = await runAttempt(codexAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('failed');
    expect(outcome.providerFailure?.class).toBe('auth');
    expect(outcome.providerFailure?.evidence).toMatch(/HTTP 401 invalid_api_key/);
    expect(outcome.failureKind).toBe('fatal');
    expect(outcome.retryable).toBe(false);
    expect(setup.server().requests).toHaveLength(1);
    // The call reached the provider: spend is measured, not `not_applicable`.
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it("classifies a 429 as rate_limited with the server's Retry-After", async () => {
    const task = await codexTask(() => ({ kind: 'error', status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached', headers: { 'retry-after': '7' } }));
    const { outcome } = await runAttempt(codexAdapter, task);
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('rate_limited');
    expect(outcome.providerFailure).toMatchObject({ class: 'rate_limited', retryAfterMs: 7000 });
    expect(outcome.retryable).toBeUndefined();
  });

  it('classifies a rate limit reported inside the stream (response.failed) with its wait', async () => {
    const task = await codexTask(() => ({ kind: 'failed', code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again in 1.5s.' }));
    const { outcome } = await runAttempt(codexAdapter, task);
    expect(outcome.providerFailure).toMatchObject({ class: 'rate_limited', retryAfterMs: 1500 });
  });

  it('classifies a 500 as transient and a 503 as overloaded, one request each', async () => {
    let task = await codexTask(() => ({ kind: 'error', status: 500, type: 'server_error', message: 'boom' }));
    let { outcome } = await runAttempt(codexAdapter, task);
    expect(outcome.failureKind).toBe('transient');
    expect(setup.server().requests).toHaveLength(1);
    await setup.server().close();
    task = await codexTask(() => ({ kind: 'error', status: 503, type: 'server_error', message: 'overloaded' }));
    ({ outcome } = await runAttempt(codexAdapter, task));
    expect(outcome.failureKind).toBe('overloaded');
  });

  it('passes a hostile prompt on stdin: never a flag, never shell text', async () => {
    const { outcome, server, dir } = await plainAnswer();
    expect(outcome.status).toBe('completed');
    expect(JSON.stringify(server.requests[0]!.body.input)).toContain(JSON.stringify(HOSTILE).slice(1, -1));
    expect(server.requests[0]!.body.model).toBe('gpt-5-test');
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(dir, f))).toBe(false);
  });

  it('sends output_format as a strict JSON schema and the system prompt as developer instructions', async () => {
    const task = await codexTask(() => ({ kind: 'stream', deltas: ['{"verdict":"ship"}'] }), {
      outputFormat: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] },
      systemPrompt: 'Answer as a release manager.',
    });
    const { outcome } = await runAttempt(codexAdapter, task);
    expect(outcome.status).toBe('completed');
    expect(outcome.structured).toEqual({ verdict: 'ship' });
    const body = setup.server().requests[0]!.body;
    expect(body.text.format).toMatchObject({ type: 'json_schema', schema: { additionalProperties: false } });
    expect(JSON.stringify(body.input)).toContain('Answer as a release manager.');
  });

  cliProcessCases({
    provider: 'codex',
    adapter: codexAdapter,
    hangingTask: (overrides) => codexTask(() => ({ kind: 'hang' }), overrides),
    notFound: CODEX_NOT_FOUND,
    dir: () => setup.dir(),
  });
  it('continues the session an earlier attempt left (exec resume), and starts cold when Codex no longer has it', async () => {
    const base = await codexTask(() => ({ kind: 'stream', deltas: ['noted'], usage: { input_tokens: 5, output_tokens: 1, total_tokens: 6 } }));
    // The node's attempts share a session folder (the supervisor gives one per run and node).
    const task = { ...base, sessionDir: join(setup.dir(), 'node-sessions') };
    const sent = () => JSON.stringify(setup.server().requests.at(-1)!.body.input);
    const first = await runAttempt(codexAdapter, { ...task, prompt: 'remember the word PELICAN' });
    const sessionId = first.outcome.end.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const resumed = await runAttempt(codexAdapter, { ...task, scratchDir: join(setup.dir(), 'attempt-2'), prompt: 'which word was it?', resumeSessionId: sessionId });
    expect(resumed.outcome.status).toBe('completed');
    expect(resumed.outcome.end.sessionOrigin).toBe('resumed');
    expect(sent()).toContain('PELICAN');
    expect(sent()).toContain('which word was it?');

    const probe = spawnProbe();
    const cold = await runAttempt(codexAdapter, { ...task, scratchDir: join(setup.dir(), 'attempt-3'), prompt: 'start over', resumeSessionId: randomUUID() }, { onSpawned: probe.onSpawned });
    expect(cold.outcome.status).toBe('completed');
    expect(cold.outcome.output).toBe('noted');
    expect(cold.outcome.end.sessionOrigin).toBe('resume-failed-cold');
    expect(sent()).toContain('start over');
    expect(sent()).not.toContain('PELICAN');
    expect(probe.pids).toHaveLength(2);
    for (const pid of probe.pids) expect(isProcessGroupAlive(pid)).toBe(false);
  });
});

function isFile(path: string): boolean {
  try {
    return readFileSync(path) !== undefined;
  } catch {
    return false;
  }
}
