import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { join } from 'node:path';
import { startAnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * kill -9 of the supervisor while a node continuing another node's session (`context: shared`)
 * is mid-stream: the completed node's session handle is durable, so the node that takes the work
 * over continues the same source session again (a new fork of it), the node completes once, and
 * the source node is not run again.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a supervisor killed -9 while a shared-context node streams: the take-over continues the source node’s session again and completes the node once', async () => {
  let recallAsks = 0;
  // Answers chosen by the conversation: the first `recall` request stalls mid-stream.
  const reply = (body: any): MessagesReply => {
    const text = JSON.stringify(body.messages);
    if (!text.includes('what was the word')) return { kind: 'stream', blocks: [{ type: 'text', text: 'noted' }] };
    recallAsks += 1;
    return recallAsks === 1
      ? { kind: 'stream', blocks: [{ type: 'text', text: 'PELI' }, { type: 'text', text: 'never' }], stallAfterFirst: true }
      : { kind: 'stream', blocks: [{ type: 'text', text: 'PELICAN' }] };
  };
  const messages = await startAnthropicServer((req) => reply(req.body));
  home.defer(() => messages.close());
  const cairn = await startServer(home, { ...claudeCliEnv(messages.url, join(home.home, 'cli-home')), CLAUDE_BIN_PATH: pinnedClaudeCli });
  await writeHomeWorkflow(home, 'shared-crash', `name: shared-crash
description: a shared-context node killed mid-stream
provider: claude
nodes:
  - id: learn
    prompt: "remember the word PELICAN"
  - id: recall
    depends_on: [learn]
    context: shared
    prompt: "what was the word?"
`);
  const { runId } = await startRun(cairn.url, 'shared-crash');
  const started = await waitFor(async () => (await getRun(cairn.url, runId)).events.find((e) => e.event_type === 'node_started' && e.step_name === 'recall'), {
    what: 'recall to start', timeoutMs: 30_000,
  });
  await waitFor(() => recallAsks >= 1, { what: 'recall to call the Messages API', timeoutMs: 30_000 });
  const supervisorPid = await cairn.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 90_000 });
  expect(run.status).toBe('completed');
  expect(isProcessGroupAlive(started.data.pid as number)).toBe(false);
  // learn ran once; recall twice (the interrupted attempt, then the take-over's), completed once.
  const completed = events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name);
  expect(completed).toEqual(['learn', 'recall']);
  expect(events.filter((e) => e.step_name === 'learn' && e.event_type === 'node_started')).toHaveLength(1);
  // Both recall requests carried learn's conversation.
  const recallRequests = messages.requests.map((r) => JSON.stringify(r.body.messages)).filter((t) => t.includes('what was the word'));
  expect(recallRequests).toHaveLength(2);
  expect(recallRequests.every((t) => t.includes('remember the word PELICAN'))).toBe(true);
  const recall = events.find((e) => e.step_name === 'recall' && e.event_type === 'node_completed')!.data.execution;
  expect(recall.binding.sessionOrigin).toBe('resumed');
  expect(recall.diagnostics).toMatchObject({ sessionSourceNodeId: 'learn', sessionForked: true });
  expect(recall.sessionId).not.toBe(events.find((e) => e.step_name === 'learn' && e.event_type === 'node_completed')!.data.execution.sessionId);
}, 120_000);
