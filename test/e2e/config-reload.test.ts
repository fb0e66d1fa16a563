import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * `assistants.<id>.baseUrl` and `apiKey` edited in config.yaml while `cairn serve` runs: they
 * were read once at start, so the next run still talked to the old server with the old key. A
 * run (and a chat turn) connects with the file as it reads when it starts, as tiers and aliases
 * already did. The real Claude Code CLI against two local Messages API servers.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const answering = async (text: string): Promise<AnthropicServer> => {
  const server = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text }] }));
  home.defer(() => server.close());
  return server;
};

const writeConfig = (baseUrl: string, apiKey: string) =>
  writeFileSync(home.paths.config, `assistants:\n  claude:\n    baseUrl: ${baseUrl}\n    apiKey: ${apiKey}\n`, { mode: 0o600 });

async function outputOfRun(url: string): Promise<string> {
  const { runId } = await startRun(url, 'ask');
  const { run, events } = await waitFor(async () => {
    const detail = await getRun(url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 60_000 });
  expect(run.status, run.error ?? undefined).toBe('completed');
  const done = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'ask')!;
  return (done.data as { execution: { output: { text: string } } }).execution.output.text;
}

it('a config.yaml edit of the base URL and key applies from the next run on, without a restart', async () => {
  const first = await answering('from the first server');
  const second = await answering('from the second server');
  writeConfig(first.url, 'sk-ant-first');
  await writeHomeWorkflow(home, 'ask', 'name: ask\ndescription: one question\nprovider: claude\nnodes:\n  - id: ask\n    prompt: "say hi"\n');
  const cliHome = join(home.home, 'cli-home');
  mkdirSync(cliHome);
  const server = await startServer(home, {
    CLAUDE_BIN_PATH: pinnedClaudeCli, HOME: cliHome, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
  });

  expect(await outputOfRun(server.url)).toBe('from the first server');
  expect(first.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-first');

  writeConfig(second.url, 'sk-ant-second');
  const askedFirst = first.requests.length;
  expect(await outputOfRun(server.url)).toBe('from the second server');
  expect(first.requests).toHaveLength(askedFirst);
  expect(second.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-second');
});
