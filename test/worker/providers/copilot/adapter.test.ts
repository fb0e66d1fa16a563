import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { COPILOT_NOT_FOUND, copilotAdapter } from '../../../../src/worker/providers/copilot/adapter.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt, scratch, spawnProbe } from '../agent-harness.js';
import { chatCliCases } from '../chat-cli-cases.js';

/**
 * The real GitHub Copilot CLI (npm package @github/copilot, a devDependency whose native binary
 * runs here) with a custom model provider, driven by the real adapter, pointed at a local server that speaks the Chat Completions API.
 */

const SECRET = 'sk-copilot-test-SECRET-4242';

let server: OpenAiServer | undefined;
let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  dir.cleanup();
});

async function copilotTask(reply: (i: number) => ChatReply, overrides: Parameters<typeof agentTask>[1] = {}) {
  server = await startOpenAiServer((_req, i) => reply(i));
  return agentTask(dir.dir, {
    provider: 'copilot',
    model: 'cp-test',
    // HOME is the test's own: the adapter must never write to $HOME/.copilot.
    connection: { baseUrl: server.url, apiKey: SECRET, env: { HOME: dir.dir } },
    ...overrides,
  });
}

describe('copilot adapter (real GitHub Copilot CLI)', () => {
  it('streams the answer; reports tokens (a zero stays zero), stop reason, the resolved model and the session; key only in the auth header', async () => {
    const task = await copilotTask(() => ({
      kind: 'stream',
      model: 'cp-test-2026-01-01',
      deltas: ['hello ', 'from copilot'],
      usage: { prompt_tokens: 20, completion_tokens: 0, total_tokens: 20, prompt_tokens_details: { cached_tokens: 5 } },
    }));
    const probe = spawnProbe();
    const { outcome, chunks, spend } = await runAttempt(copilotAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('hello from copilot');
    expect(chunks.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text)).toEqual(['hello ', 'from copilot']);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 20, output: 0, cacheRead: 5, total: 20 } });
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'stop' });
    expect(spend.numTurns).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(outcome.end.resolvedModel).toBe('cp-test-2026-01-01');
    expect(outcome.end.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // Every line the real CLI printed was read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    expect(server!.requests).toHaveLength(1);
    const body = server!.requests[0]!.body;
    expect(body.model).toBe('cp-test');
    expect(server!.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify({ chunks, outcome, spend })).not.toContain(SECRET);
    for (const f of readdirSync(task.scratchDir, { recursive: true }) as string[]) {
      const path = join(task.scratchDir, f);
      if (existsSync(path) && statSync(path).isFile() && statSync(path).size < 5_000_000) {
        expect(readFileSync(path).toString('latin1')).not.toContain(SECRET);
      }
    }
    expect(existsSync(join(dir.dir, '.copilot'))).toBe(false);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  chatCliCases({
    label: 'Copilot', provider: 'copilot', adapter: copilotAdapter, model: 'cp-test', secret: SECRET,
    task: copilotTask, server: () => server!, dir: () => dir.dir,
  });

  it("fails with the contract's error when the configured executable is missing, and asks for a model", async () => {
    let task = agentTask(dir.dir, { provider: 'copilot', model: 'cp-test', connection: { binaryPath: join(dir.dir, 'no-such-copilot') } });
    let { outcome, spend } = await runAttempt(copilotAdapter, task);
    expect(outcome.error).toContain(COPILOT_NOT_FOUND);
    expect(outcome.failureKind).toBe('config');
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'not_applicable' });
    task = agentTask(dir.dir, { provider: 'copilot', connection: {} });
    ({ outcome } = await runAttempt(copilotAdapter, task));
    expect(outcome.failureKind).toBe('config');
    expect(outcome.error).toMatch(/Copilot needs a model/);
  });
});
