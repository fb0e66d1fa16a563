import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { piAdapter } from '../../../../src/worker/providers/pi.js';
import { startOpenAiServer, type OpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt, scratch, spawnProbe } from '../../providers/agent-harness.js';

/**
 * `output_format` on a best-effort agent CLI: the real Pi coding agent, driven by the real
 * adapter against a local Chat Completions server. The schema is in the prompt; a wrong answer
 * is asked again in the same Pi session (the model sees its question and its answer), naming
 * what was wrong; the spend of both Pi runs is the attempt's.
 */

const schema = { type: 'object', properties: { kind: { type: 'string' }, note: { type: 'string' } }, required: ['kind'] };
const schemaText = JSON.stringify(schema, null, 2);

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

/** Every text of a Chat Completions request's messages, by role, in order. */
function texts(body: { messages: { role: string; content: unknown }[] }, role: string): string[] {
  return body.messages
    .filter((m) => m.role === role)
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')));
}

async function askPi(answers: string[]) {
  const usage = [
    { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 },
  ];
  server = await startOpenAiServer((_req, i) => ({ kind: 'stream', deltas: [answers[i] ?? '{"kind":"unexpected call"}'], usage: usage[i] ?? null }));
  const task = agentTask(dir.dir, {
    provider: 'pi',
    model: 'pi-test',
    prompt: 'Classify the issue: the button does nothing.',
    outputFormat: schema,
    connection: { baseUrl: server.url, apiKey: 'sk-pi-test', env: { HOME: dir.dir } },
    sessionDir: join(dir.dir, 'node-session'),
  });
  const probe = spawnProbe();
  const run = await runAttempt(piAdapter, task, { onSpawned: probe.onSpawned });
  return { ...run, pids: probe.pids };
}

describe('structured output on Pi (best effort, real CLI)', () => {
  it('shows the schema, asks again in the same session after prose, naming the error, and completes with the second answer; both runs are spent', async () => {
    const { outcome, spend, pids } = await askPi(['It is a bug, I think.', '{"kind":"bug"}']);
    expect(outcome.status).toBe('completed');
    expect(outcome.structured).toEqual({ kind: 'bug' });
    expect(outcome.output).toBe('{"kind":"bug"}');
    expect(outcome.reasked).toEqual([expect.stringMatching(/^the answer is not JSON/)]);

    expect(server!.requests).toHaveLength(2);
    const firstAsk = texts(server!.requests[0]!.body, 'user').join('\n');
    expect(firstAsk).toContain('Classify the issue: the button does nothing.');
    expect(firstAsk).toContain(schemaText);
    expect(firstAsk).toMatch(/one JSON object that matches the JSON Schema below, and nothing else/);
    // The session continued: the question, the wrong answer, then the re-ask naming the error.
    const second = server!.requests[1]!.body;
    const users = texts(second, 'user');
    expect(users[0]).toContain('Classify the issue: the button does nothing.');
    expect(texts(second, 'assistant').join('\n')).toContain('It is a bug, I think.');
    expect(users.at(-1)).toContain(`Your answer cannot be used: ${outcome.reasked![0]}`);
    expect(users.at(-1)).toContain(schemaText);

    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 400, output: 30, total: 430 } });
    expect(outcome.end.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // Not a continuation of an earlier attempt: the attempt's session is fresh.
    expect(outcome.end.sessionOrigin).toBeUndefined();
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isProcessGroupAlive(pid)).toBe(false);
  });

  it('fails with output_contract naming both errors after invalid JSON then a missing required field', async () => {
    const { outcome, spend } = await askPi(['{"kind": "bug",', '{"note": "forgot the kind"}']);
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('output_contract');
    expect(outcome.error).toMatch(/^output_format: no answer matched the schema in 2 asks \(answer 1: the answer is not JSON .*; answer 2: the answer does not match the schema: kind: /);
    expect(server!.requests).toHaveLength(2);
    expect(texts(server!.requests[1]!.body, 'user').at(-1)).toContain(`Your answer cannot be used: ${outcome.reasked![0]}`);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 400, output: 30, total: 430 } });
  });
});
