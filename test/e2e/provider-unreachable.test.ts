import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer } from '../helpers/anthropic-server.js';
import { claudeClis } from '../helpers/claude-cli.js';
import { freePort } from '../helpers/free-port.js';
import { runCli, userCliEnv } from '../cli/cli-process.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A model server that does not answer: the real Claude Code CLI, pointed at a port nobody
 * listens on, retried in silence for three minutes and then failed as class `unknown` (never
 * retried), naming no address. Its retries are now shown as they happen, a refused connection
 * fails the attempt `transient` within seconds with the address in the error, and the node's
 * retry policy runs it again, which succeeds once the server is up.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it.each(claudeClis)('$name: a refused connection is shown live, fails the attempt transient naming the address, and the retry succeeds once the server answers', async ({ path }) => {
  const port = await freePort();
  const address = `http://127.0.0.1:${port}`;
  writeFileSync(home.paths.config, `assistants:\n  claude:\n    baseUrl: ${address}\n    apiKey: sk-ant-test\n`, { mode: 0o600 });
  await writeHomeWorkflow(home, 'ask', `name: ask
description: one question, retried on transient failures
provider: claude
nodes:
  - id: ask
    prompt: "say hi"
    retry: { max_attempts: 2, delay_ms: 1000 }
`);
  const cliHome = join(home.home, 'cli-home');
  mkdirSync(cliHome);
  const server = await startServer(home, { CLAUDE_BIN_PATH: path, HOME: cliHome, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
  const { runId } = await startRun(server.url, 'ask');

  // Each retry of the CLI is an event while the attempt runs.
  const notice = await waitFor(async () => (await getRun(server.url, runId)).events.find((e) => e.event_type === 'provider_retrying'), {
    what: 'a retry notice', timeoutMs: 30_000,
  });
  expect(notice.data).toMatchObject({ node_id: 'ask', provider: 'claude', attempt: 1, message: expect.stringContaining(address) });
  const failed = await waitFor(async () => (await getRun(server.url, runId)).events.find((e) => e.event_type === 'node_failed' && e.step_name === 'ask'), {
    what: 'the first attempt to fail', timeoutMs: 30_000,
  });
  const lifecycle = (failed.data as { execution: { lifecycle: { failureKind: string; error: string; providerFailure?: { class: string } } } }).execution.lifecycle;
  expect(lifecycle).toMatchObject({ failureKind: 'transient', providerFailure: { class: 'transient' } });
  expect(lifecycle.error).toContain(`cannot connect to the provider at ${address}`);

  // The model server comes up: the node's retry (a new attempt) reaches it and completes.
  const messages = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'hi there' }] }), { port });
  home.defer(() => messages.close());
  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 60_000 });
  expect(run.status, run.error ?? undefined).toBe('completed');
  const attempts = events.filter((e) => e.step_name === 'ask' && e.event_type === 'node_started');
  expect(attempts).toHaveLength(2);
  const retries = events.filter((e) => e.event_type === 'provider_retrying').map((e) => (e.data as { attempt: number }).attempt);
  expect(retries.slice(0, 3)).toEqual([1, 2, 3]);
  // The CLI shows each retry on a line of its own, naming the address.
  const shown = await runCli(['run', 'follow', runId], { env: userCliEnv(home.home, { CAIRN_URL: server.url }), cwd: home.home });
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toContain(`waits    ask cannot connect to ${address}; Claude Code retries (1/10)`);
});
