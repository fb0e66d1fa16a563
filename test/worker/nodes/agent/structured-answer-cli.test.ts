import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executionRecordSchema } from '../../../../src/records/schemas/execution-record.js';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { sqliteStoreConfig } from '../../../../src/store/open-store.js';
import { startOpenAiServer, type OpenAiServer } from '../../../helpers/openai-server.js';
import { makeExecHarness } from '../../exec-harness.js';
import { agentTask, scratch } from '../../providers/agent-harness.js';

/**
 * `output_format` on a best-effort agent CLI: the real Pi coding agent, driven by the real
 * adapter in a real worker thread over a real store, against a local Chat Completions server.
 * The schema is in the prompt; a wrong answer is asked again in the same Pi session (the model
 * sees its question and its answer), naming what was wrong; the record spends both Pi runs and
 * has a start record for each Pi process.
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

const answers = ['{"kind": "bug",', '{"note": "forgot the kind"}', 'It is a bug, I think.', '{"kind":"bug"}'];
const usage = (i: number) => ({ prompt_tokens: 100 * (i + 1), completion_tokens: 10 * (i + 1), total_tokens: 110 * (i + 1) });

describe('structured output on Pi (best effort, real CLI, in a worker thread)', () => {
  it('shows the schema and asks again in the same session naming the error; two wrong answers fail output_contract, a right second answer completes; each record spends both runs and keeps each process', async () => {
    const h = await makeExecHarness();
    try {
      server = await startOpenAiServer((_req, i) => ({ kind: 'stream', deltas: [answers[i] ?? '{"kind":"unexpected call"}'], usage: usage(i) }));
      const task = (attempt: number, resumeSessionId?: string) =>
        agentTask(dir.dir, {
          store: sqliteStoreConfig(h.home.paths.database),
          runId: h.runId,
          conversationId: h.conversationId,
          attempt: { id: randomUUID(), number: attempt },
          provider: 'pi',
          model: 'pi-test',
          prompt: 'Classify the issue: the button does nothing.',
          outputFormat: schema,
          connection: { baseUrl: server!.url, apiKey: 'sk-pi-test', env: { HOME: dir.dir } },
          scratchDir: join(dir.dir, `attempt-${attempt}`),
          sessionDir: join(dir.dir, 'node-session'),
          ...(resumeSessionId !== undefined ? { resumeSessionId } : {}),
        });
      const records = async (attemptId: string) => {
        // The attempt's records (its agent activity events carry no execution record).
        const events = (await h.events('ask')).filter((e) => (e.data.execution as { attempt: { id: string } } | undefined)?.attempt.id === attemptId);
        const started = events.filter((e) => e.event_type === 'node_started');
        const end = events.find((e) => e.event_type !== 'node_started')!;
        return { started, end: executionRecordSchema.parse(end.data.execution) };
      };
      const origins = (started: { data: Record<string, unknown> }[]) => started.map((e) => (e.data.execution as { binding: { sessionOrigin: string } }).binding.sessionOrigin);

      // Attempt 1: invalid JSON, asked again in Pi's session, then a missing required field.
      const first = task(1);
      const failed = await h.pool.runAttempt(first);
      expect(failed.status).toBe('failed');
      expect(failed.failureKind).toBe('output_contract');
      expect(failed.error).toMatch(/^output_format: no answer matched the schema in 2 asks \(answer 1: the answer is not JSON .*; answer 2: the answer does not match the schema: kind: /);
      expect(server!.requests).toHaveLength(2);
      const ask = texts(server!.requests[0]!.body, 'user').join('\n');
      expect(ask).toContain('Classify the issue: the button does nothing.');
      expect(ask).toContain(schemaText);
      expect(ask).toMatch(/one JSON object that matches the JSON Schema below, and nothing else/);
      // The session continued: the question, the wrong answer, then the re-ask naming the error.
      const reask = server!.requests[1]!.body;
      expect(texts(reask, 'user')[0]).toContain('Classify the issue: the button does nothing.');
      expect(texts(reask, 'assistant').join('\n')).toContain('{"kind": "bug",');
      expect(texts(reask, 'user').at(-1)).toMatch(/^Your answer cannot be used: the answer is not JSON \(.+\)\./);
      expect(texts(reask, 'user').at(-1)).toContain(schemaText);
      const one = await records(first.attempt.id);
      // One start record per Pi process, each written before it ran; both gone now.
      expect(one.started).toHaveLength(2);
      expect(new Set(one.started.map((e) => e.data.pid)).size).toBe(2);
      for (const e of one.started) expect(isProcessGroupAlive(e.data.pid as number)).toBe(false);
      expect(origins(one.started)).toEqual(['fresh', 'fresh']);
      expect(one.end.lifecycle).toMatchObject({ status: 'failed', failureKind: 'output_contract', retryable: false, error: failed.error });
      expect(one.end.spend.tokens).toEqual({ source: 'provider', value: { input: 300, output: 30, total: 330 } });
      expect(one.end.diagnostics?.structuredReasks).toEqual([expect.stringMatching(/^the answer is not JSON/)]);
      expect(one.end.output?.text).toBe('{"note": "forgot the kind"}');

      // Attempt 2 continues the session attempt 1 left: prose, asked again, then the JSON.
      const second = task(2, one.end.sessionId);
      const done = await h.pool.runAttempt(second);
      expect(done.status).toBe('completed');
      expect(done.output).toBe('{"kind":"bug"}');
      expect(server!.requests).toHaveLength(4);
      expect(texts(server!.requests[3]!.body, 'assistant').join('\n')).toContain('It is a bug, I think.');
      expect(texts(server!.requests[3]!.body, 'user').at(-1)).toMatch(/^Your answer cannot be used: the answer is not JSON/);
      const two = await records(second.attempt.id);
      // The re-ask's process continues the attempt: it is not a cold start.
      expect(origins(two.started)).toEqual(['resumed', 'resumed']);
      expect(two.end.binding.sessionOrigin).toBe('resumed');
      expect(two.end.output).toMatchObject({ text: '{"kind":"bug"}', structured: { kind: 'bug' } });
      expect(two.end.spend.tokens).toEqual({ source: 'provider', value: { input: 700, output: 70, total: 770 } });
      expect(two.end.diagnostics?.structuredReasks).toEqual([expect.stringMatching(/^the answer is not JSON/)]);
    } finally {
      await h.home.close();
    }
  });
});
