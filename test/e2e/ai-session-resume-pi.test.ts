import { afterEach, beforeEach, expect, it } from 'vitest';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../helpers/openai-server.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * The same through the real supervisor for a CLI on a Chat Completions server: the real Pi CLI
 * against a local server. The first attempt's model asks for a tool, Pi runs it, and the next
 * call stalls until the idle watchdog kills it; the retry continues that session (`pi --session
 * <id>`, in the home the node keeps under the run's artifacts), so the server sees the first
 * attempt's turns again. Pi writes a session only once the model has answered once: an attempt
 * stopped before that is retried cold (`resume-failed-cold`), which the second case shows.
 */

let home: TempHome;
let server: OpenAiServer;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
});

const userTurns = (body: any) => (body.messages as { role: string }[]).filter((m) => m.role === 'user').length;

async function runStallingOnce(first: ChatReply[]) {
  server = await startOpenAiServer((_req, i): ChatReply => first[i] ?? { kind: 'stream', deltas: ['summary'] });
  const api = await startServer(home, { OPENAI_BASE_URL: server.url });
  await writeHomeWorkflow(home, 'resumable', `name: resumable
description: one AI step that stalls once
provider: pi
model: pi-test
nodes:
  - id: summarise
    prompt: "summarise the ticket"
    idle_timeout: 3000
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`);
  const { runId } = await startRun(api.url, 'resumable');
  const done = await waitFor(async () => {
    const detail = await getRun(api.url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 90_000 });
  const records = done.events
    .filter((e) => e.step_name === 'summarise' && ['node_failed', 'node_completed'].includes(e.event_type))
    .map((e) => e.data.execution);
  expect(done.run.status).toBe('completed');
  return records.map((r) => [r.lifecycle.status, r.lifecycle.failureKind, r.binding.sessionOrigin]);
}

it("continues the failed attempt's Pi session on the retry", async () => {
  const outcomes = await runStallingOnce([
    { kind: 'stream', deltas: [], toolCalls: [{ id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: 'echo looked-at-the-ticket' }) }] },
    { kind: 'stream', deltas: ['partial'], stallAfterFirst: true },
  ]);
  expect(outcomes).toEqual([
    ['failed', 'timeout', 'fresh'],
    ['completed', undefined, 'resumed'],
  ]);
  // The retry's call carries the first attempt's turns: the prompt, the tool call and its output.
  const retried = JSON.stringify(server.requests.at(-1)!.body.messages);
  expect(retried).toContain('summarise the ticket');
  expect(retried).toContain('call_1');
  expect(retried).toContain('looked-at-the-ticket');
  expect(userTurns(server.requests.at(-1)!.body)).toBeGreaterThan(userTurns(server.requests[0]!.body));
});

it('retries cold when the failed attempt was stopped before Pi saved its session', async () => {
  const outcomes = await runStallingOnce([{ kind: 'stream', deltas: ['partial'], stallAfterFirst: true }]);
  expect(outcomes).toEqual([
    ['failed', 'timeout', 'fresh'],
    ['completed', undefined, 'resume-failed-cold'],
  ]);
  expect(userTurns(server.requests.at(-1)!.body)).toBe(userTurns(server.requests[0]!.body));
});
