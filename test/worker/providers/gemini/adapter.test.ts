import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { GEMINI_NOT_FOUND, geminiAdapter } from '../../../../src/worker/providers/gemini/adapter.js';
import { startGeminiServer, type GeminiReply } from '../../../helpers/gemini-server.js';
import { agentTask, runAttempt, spawnProbe } from '../agent-harness.js';
import { cliTestSetup, scriptedConnection, sharedAttempt } from '../common/cli-test-setup.js';
import { cliProcessCases } from '../cli-process-cases.js';
import { filesHolding } from '../chat-cli-cases.js';

/**
 * The real Gemini CLI (npm package @google/gemini-cli, a devDependency that runs on Node 20)
 * driven by the real adapter, pointed at a local server that speaks the Gemini API's SSE format.
 */

const SECRET = 'gemini-test-SECRET-7777';

const setup = cliTestSetup({
  start: (reply: (i: number) => GeminiReply) => startGeminiServer((_req, i) => reply(i)),
  task: (server, dir) => ({ provider: 'gemini', model: 'gemini-2.5-flash', connection: scriptedConnection(server, SECRET, dir) }),
});
const geminiTask = setup.task;

/** A prompt that would be a flag, or run commands, if it reached a command line or a shell. */
const HOSTILE = '--yolo -m evil\n"; touch pwned; echo "$(touch pwned2) `touch pwned3` \'quoted\'';
// The CLI started once for two tests: each checks another thing of the same streamed answer.
const streamedAnswer = sharedAttempt(async (dir, keep) => {
  const server = await startGeminiServer(() => ({
    kind: 'stream',
    modelVersion: 'gemini-2.5-flash-test-001',
    deltas: ['hello ', 'from gemini'],
    usage: { promptTokenCount: 12, candidatesTokenCount: 0, cachedContentTokenCount: 2, totalTokenCount: 12 },
  }));
  keep(server);
  const task = agentTask(dir, { provider: 'gemini', model: 'gemini-2.5-flash', prompt: HOSTILE, connection: scriptedConnection(server, SECRET, dir) });
  const probe = spawnProbe();
  return { ...(await runAttempt(geminiAdapter, task, { onSpawned: probe.onSpawned })), server, probe };
});

describe('gemini adapter (real Gemini CLI)', () => {
  it('streams text; reports tokens (a zero stays zero), the resolved model and the session; key only in its header', async () => {
    const { outcome, chunks, spend, server, probe, dir } = await streamedAnswer();
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('hello from gemini');
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 12, output: 0, cacheRead: 2, total: 12 } });
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(outcome.end.resolvedModel).toBe('gemini-2.5-flash-test-001');
    expect(outcome.end.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // Every line the real CLI printed was read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    expect(server.requests[0]!.path).toContain('/models/gemini-2.5-flash:streamGenerateContent');
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe(SECRET);
    expect(JSON.stringify({ chunks, outcome, spend })).not.toContain(SECRET);
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('continues the session an earlier attempt left, and starts cold when the CLI no longer has it', async () => {
    const answers = ['noted: heron', 'it was heron', 'fresh start'];
    const task = await geminiTask((i) => ({ kind: 'stream', deltas: [answers[i] ?? 'more'] }), {
      prompt: 'remember the word heron',
      sessionDir: join(setup.dir(), 'node-session'),
    });
    const first = await runAttempt(geminiAdapter, task);
    expect(first.outcome.status).toBe('completed');
    expect(first.outcome.end.sessionOrigin).toBeUndefined();
    const sessionId = first.outcome.end.sessionId!;

    const resumed = await runAttempt(geminiAdapter, { ...task, scratchDir: join(setup.dir(), 'attempt-2'), prompt: 'which word was it?', resumeSessionId: sessionId });
    expect(resumed.outcome.status).toBe('completed');
    expect(resumed.outcome.end.sessionOrigin).toBe('resumed');
    expect(resumed.outcome.output).toBe('it was heron');
    // The model was sent the earlier turn: the session really continued.
    const continued = JSON.stringify(setup.server().requests.at(-1)!.body);
    expect(continued).toContain('remember the word heron');
    expect(continued).toContain('noted: heron');
    expect(continued).toContain('which word was it?');

    const probe = spawnProbe();
    const cold = await runAttempt(geminiAdapter, { ...task, scratchDir: join(setup.dir(), 'attempt-3'), prompt: 'start over', resumeSessionId: randomUUID() }, { onSpawned: probe.onSpawned });
    expect(cold.outcome.status).toBe('completed');
    expect(cold.outcome.end.sessionOrigin).toBe('resume-failed-cold');
    expect(cold.outcome.output).toBe('fresh start');
    expect(JSON.stringify(setup.server().requests.at(-1)!.body)).not.toContain('heron');
    for (const pid of probe.pids) expect(isProcessGroupAlive(pid)).toBe(false);
    // The node's home outlives its attempts: no file in it holds the key.
    expect(filesHolding(join(setup.dir(), 'node-session'), SECRET)).toEqual([]);
  });

  it("is not held up by a lock an earlier attempt's CLI left in the node's home", async () => {
    // The CLI can exit between taking its registry lock and giving it back; the next CLI in the
    // same home would wait until the lock is 10 s old, past this attempt's first-event watchdog.
    // The lock is kept young for the whole attempt, so a CLI that met it would wait until the
    // watchdog ends the attempt, however fast or slow the machine is.
    const sessionDir = join(setup.dir(), 'node-session');
    const lock = join(sessionDir, 'gemini-home', '.gemini', 'projects.json.lock');
    mkdirSync(lock, { recursive: true });
    const keepYoung = setInterval(() => {
      const now = new Date();
      try {
        utimesSync(lock, now, now);
      } catch {
        // The adapter removed it: what this test wants.
      }
    }, 500);
    try {
      const task = await geminiTask(() => ({ kind: 'stream', deltas: ['on time'] }), { sessionDir });
      const { outcome } = await runAttempt(geminiAdapter, task);
      expect(outcome.status).toBe('completed');
      expect(outcome.output).toBe('on time');
    } finally {
      clearInterval(keepYoung);
    }
  });

  it('stops the CLI at a 401 and fails at once with class auth, never retried', async () => {
    const task = await geminiTask(() => ({ kind: 'error', status: 401, googleStatus: 'UNAUTHENTICATED', message: 'API key not valid' }));
    const probe = spawnProbe();
    const { outcome } = await runAttempt(geminiAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('failed');
    expect(outcome.providerFailure).toMatchObject({ class: 'auth' });
    expect(outcome.providerFailure?.evidence).toMatch(/HTTP 401 UNAUTHENTICATED/);
    expect(outcome.failureKind).toBe('fatal');
    expect(outcome.retryable).toBe(false);
    expect(setup.server().requests).toHaveLength(1);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it("stops the CLI's own retries at a 429 and fails rate_limited with the server's Retry-After", async () => {
    const task = await geminiTask(() => ({ kind: 'error', status: 429, googleStatus: 'RESOURCE_EXHAUSTED', message: 'quota per minute', headers: { 'retry-after': '9' } }));
    const probe = spawnProbe();
    const { outcome } = await runAttempt(geminiAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.failureKind).toBe('rate_limited');
    expect(outcome.providerFailure).toMatchObject({ class: 'rate_limited', retryAfterMs: 9000 });
    expect(setup.server().requests.length).toBeLessThanOrEqual(2);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('passes a hostile prompt on stdin: never a flag, never shell text', async () => {
    const { outcome, server, dir } = await streamedAnswer();
    expect(outcome.status).toBe('completed');
    expect(JSON.stringify(server.requests[0]!.body.contents)).toContain(JSON.stringify(HOSTILE).slice(1, -1));
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(dir, f))).toBe(false);
  });

  cliProcessCases({
    provider: 'gemini',
    adapter: geminiAdapter,
    hangingTask: (overrides) => geminiTask(() => ({ kind: 'hang' }), overrides),
    notFound: GEMINI_NOT_FOUND,
    dir: () => setup.dir(),
  });
});
