import { afterEach, beforeEach, expect, it } from 'vitest';
import { computeRunTotals } from '../../src/records/index.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { makeTestApp } from '../helpers/app.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * Run totals kept by the engine: a real supervisor, the real anthropic adapter in a worker
 * thread against a local Messages API server, the real store and API. Every attempt counts
 * (a rate-limited one, a failed one, the re-run after a resume), replays add nothing, bash
 * attempts add nothing, and the totals are there after each attempt, not only at the run's end.
 */

let home: TempHome;
let server: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
});

const answerSchema = '{ type: object, properties: { answer: { type: string } }, required: [answer] }';
const workflow = `name: ai-totals
description: an AI node, then one that fails its output contract until resumed, then bash
provider: anthropic
nodes:
  - id: first
    prompt: "say something"
  - id: ask
    depends_on: [first]
    prompt: "answer in JSON"
    output_format: ${answerSchema}
    retry: { max_attempts: 2, delay_ms: 1000 }
  - id: report
    depends_on: [ask]
    bash: echo done
`;

const replies: MessagesReply[] = [
  // first: completes.
  { kind: 'stream', blocks: [{ type: 'text', text: 'hello' }], usage: { input_tokens: 5, output_tokens: 1 } },
  // ask, attempt 1: rate limited (nothing measured), retried.
  { kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '1' } },
  // ask, attempt 2: spends tokens (with cache reads) but breaks its output contract: the node and the run fail.
  { kind: 'stream', blocks: [{ type: 'text', text: 'not json' }], usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 4 } },
  // After the resume, ask runs again and answers; first is replayed (no request).
  { kind: 'stream', blocks: [{ type: 'tool_use', name: 'structured_output', input: { answer: 'yes' } }], usage: { input_tokens: 7, output_tokens: 2 } },
];

it('sums every attempt into metadata.totals as it ends, continues them on resume without counting replays, and shows them in run detail and list', async () => {
  server = await startAnthropicServer((_req, i) => replies[i] ?? { kind: 'error', status: 500, type: 'api_error', message: 'unexpected call' });
  const sup = await startSupervisor(home, { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  const api = await makeTestApp(home);
  const run = await sup.createRun(workflow);

  const failed = await sup.waitForStatus(run.id, ['failed', 'completed']);
  expect(failed.status).toBe('failed');
  // Both attempts of `ask` and the one of `first` are in: 5+10 in, 1+3 out; the cache total is a
  // floor (one row reported tokens without cache reads); no cost (the adapter reports none).
  const afterFailure = {
    total_tokens_in: 15,
    total_tokens_out: 4,
    total_cache_read_tokens: 4,
    total_cache_partial: true,
  };
  // counted.rows: the rows that reported something (the two of `ask`); rows reporting nothing are not folded in.
  expect(failed.metadata.totals).toEqual({ ...afterFailure, counted: { rows: 2, token_rows: 2, cache_read_rows: 1, cache_write_rows: 0 } });
  expect(failed.metadata).toMatchObject(afterFailure);
  expect(failed.metadata).not.toHaveProperty('total_cost_usd');
  expect(computeRunTotals(await sup.events(run.id))).toEqual(afterFailure);

  const resumed = await api.app.inject({ method: 'POST', url: `/api/workflows/runs/${run.id}/resume` });
  expect(resumed.statusCode).toBe(200);
  const done = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(done.status).toBe('completed');
  const final = { total_tokens_in: 22, total_tokens_out: 6, total_cache_read_tokens: 4, total_cache_partial: true };
  // ask's re-run (7/2) and report's bash attempt (nothing measured) added; first's replay nothing.
  expect(done.metadata.totals).toEqual({ ...final, counted: { rows: 3, token_rows: 3, cache_read_rows: 1, cache_write_rows: 0 } });
  expect(computeRunTotals(await sup.events(run.id))).toEqual(final);
  expect(server.requests).toHaveLength(4);

  const detail = (await api.app.inject({ url: `/api/workflows/runs/${run.id}` })).json();
  expect(detail.run.metadata).toMatchObject({ ...final, totals: final });
  const list = (await api.app.inject({ url: '/api/workflows/runs' })).json();
  expect(list.runs.find((r: { id: string }) => r.id === run.id).metadata).toMatchObject({ totals: final });
});

it('counts bash attempts as reporting nothing: no total key at all for a run of bash nodes', async () => {
  const sup = await startSupervisor(home);
  const run = await sup.createRun('name: plain\ndescription: bash only\nnodes:\n  - id: a\n    bash: echo a\n  - id: b\n    bash: "exit 3"\n');
  const ended = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(ended.status).toBe('failed');
  // Nothing reported: no totals written at all (absent, never 0), and the run's row never rewritten for them.
  expect(ended.metadata.totals).toBeUndefined();
  expect(Object.keys(ended.metadata).filter((k) => k.startsWith('total_'))).toEqual([]);
});
