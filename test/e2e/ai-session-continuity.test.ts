import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * Sessions continue across nodes and loop iterations as the language says, judged on the wire:
 * the real Claude Code CLI against a local Messages API server, the real supervisor. A node that
 * continues a session sends the model the earlier conversation (its request holds the earlier
 * prompts); a fresh one does not. Records say `sessionOrigin` and, for another node's session,
 * `sessionSourceNodeId`.
 */

const cli = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/cli.js');
let home: TempHome;
let messages: AnthropicServer;
let cairn: RunningServer;
/** How the Messages server answers the current test, the workflow it runs, and where its requests begin. */
let reply: (text: string) => string;
let workflowName: string;
let firstRequest = 0;

// One Messages server and one `cairn serve` for the file: each test sets how the model answers,
// runs a workflow of its own name to its end, and looks only at the requests made since it began.
beforeAll(async () => {
  home = await makeTempHome();
  messages = await startAnthropicServer((req): MessagesReply => {
    const text = JSON.stringify(req.body.messages);
    return { kind: 'stream', blocks: [{ type: 'text', text: reply(text) }], usage: { input_tokens: 3, output_tokens: 1 } };
  });
  const cliHome = await mkdtemp(join(tmpdir(), 'cairn-claude-home-'));
  home.defer(() => rm(cliHome, { recursive: true, force: true }));
  cairn = await startServer(home, {
    ANTHROPIC_BASE_URL: messages.url, ANTHROPIC_API_KEY: 'sk-ant-sessions', CLAUDE_BIN_PATH: cli, HOME: cliHome,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
  });
});
afterAll(async () => {
  await home.close();
  await messages?.close();
});

/** The model answers with `answer` from now on; `workflow` is written under the name it gives itself. */
async function start(answer: (text: string) => string, workflow: string): Promise<void> {
  reply = answer;
  firstRequest = messages.requests.length;
  workflowName = /^name: (\S+)$/m.exec(workflow)![1]!;
  await writeHomeWorkflow(home, workflowName, workflow);
}

async function runToEnd() {
  const { runId } = await startRun(cairn.url, workflowName);
  return waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 90_000 });
}

/** The Messages requests of the current test whose conversation holds `marker`, as JSON text. */
const requestsWith = (marker: string) => messages.requests.slice(firstRequest).map((r) => JSON.stringify(r.body.messages)).filter((t) => t.includes(marker));
const terminal = (events: Record<string, any>[], step: string) =>
  events.filter((e) => e.step_name === step && ['node_completed', 'node_failed'].includes(e.event_type)).map((e) => e.data.execution);

it('context: shared continues the closest AI node upstream (through a bash node); a node without context starts fresh', async () => {
  await start(
    (text) => (text.includes('what was the word') ? 'PELICAN, as you told me' : 'noted'),
    `name: sessions-shared
description: shared context
provider: claude
nodes:
  - id: learn
    prompt: "remember the word PELICAN"
  - id: between
    depends_on: [learn]
    bash: echo between
  - id: recall
    depends_on: [between]
    context: shared
    prompt: "what was the word?"
    output_type: recollection
  - id: stranger
    depends_on: [between]
    prompt: "what was the word, stranger?"
`,
  );
  const done = await runToEnd();
  expect(done.run.status).toBe('completed');
  // recall's request carries learn's conversation; stranger's does not.
  expect(requestsWith('what was the word?').some((t) => t.includes('remember the word PELICAN'))).toBe(true);
  expect(requestsWith('what was the word, stranger?').every((t) => !t.includes('PELICAN'))).toBe(true);
  const [recall] = terminal(done.events, 'recall');
  expect(recall.binding.sessionOrigin).toBe('resumed');
  expect(recall.diagnostics).toMatchObject({ sessionSourceNodeId: 'learn', sessionForkRequested: true, sessionForked: true });
  expect(terminal(done.events, 'stranger')[0].binding.sessionOrigin).toBe('fresh');
  // learn's own session is unchanged: a fork, so recall's session id is not learn's.
  expect(recall.sessionId).not.toBe(terminal(done.events, 'learn')[0].sessionId);
  // Its output_type files carry the session its attempt left.
  expect(recall.sessionId).toEqual(expect.any(String));
  const nodes = join(home.paths.runArtifacts(done.run.id as string), 'nodes');
  expect(await readFile(join(nodes, 'recall.md'), 'utf8')).toBe('PELICAN, as you told me');
  expect(JSON.parse(await readFile(join(nodes, 'recall.meta.json'), 'utf8'))).toEqual({
    outputType: 'recollection', runId: done.run.id, producedAt: expect.any(String), size: 23, sessionId: recall.sessionId,
  });
});

it('context: { resume } continues the named node; a named node with no session fails the node, saying why', async () => {
  await start(
    () => 'ok',
    `name: sessions-named
description: named resume
provider: claude
nodes:
  - id: first
    prompt: "the colour is TEAL"
  - id: second
    prompt: "unrelated work"
  - id: back
    depends_on: [first, second]
    context: { resume: first }
    prompt: "which colour?"
  - id: api
    provider: anthropic
    prompt: "an API call keeps no session"
  - id: nowhere
    depends_on: [api]
    context: { resume: api }
    prompt: "continue the API call"
`,
  );
  const done = await runToEnd();
  const asked = requestsWith('which colour?');
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.every((t) => t.includes('the colour is TEAL') && !t.includes('unrelated work'))).toBe(true);
  expect(terminal(done.events, 'back')[0]).toMatchObject({ binding: { sessionOrigin: 'resumed' }, diagnostics: { sessionSourceNodeId: 'first' } });
  const [nowhere] = terminal(done.events, 'nowhere');
  expect(nowhere.lifecycle.status).toBe('failed');
  expect(nowhere.lifecycle.failureKind).toBe('config');
  expect(done.events.find((e) => e.step_name === 'nowhere' && e.event_type === 'node_failed')?.data.error).toMatch(
    /context\.resume: node 'api' left no session to continue/,
  );
});

const loopWorkflow = (fresh: boolean) => `name: sessions-loop-${fresh ? 'fresh' : 'kept'}
description: loop sessions
provider: claude
nodes:
  - id: grind
    output_type: draft
    loop:
      prompt: "polish the draft, iteration please"
      until: DONE
      max_iterations: 3
      fresh_context: ${fresh}
`;
/** Answers 'not yet', then 'DONE', and so on. */
const everyOtherDone = () => {
  let turns = 0;
  return () => (++turns % 2 === 0 ? 'DONE' : 'not yet');
};

it('a loop with fresh_context: false continues one session across its iterations', async () => {
  await start(everyOtherDone(), loopWorkflow(false));
  const done = await runToEnd();
  expect(done.run.status).toBe('completed');
  // The second iteration's request holds the first iteration's prompt and its own.
  expect(requestsWith('polish the draft').at(-1)!.split('polish the draft').length - 1).toBe(2);
  expect(terminal(done.events, 'grind/body').map((b: any) => b.binding.sessionOrigin)).toEqual(['fresh', 'resumed']);
  // The loop's output_type files: its final output and the session its body left; none per iteration.
  const nodes = join(home.paths.runArtifacts(done.run.id as string), 'nodes');
  expect(await readdir(nodes)).toEqual(['grind.md', 'grind.meta.json']);
  const grind = done.events.findLast((e: Record<string, any>) => e.event_type === 'node_completed' && e.step_name === 'grind')!;
  expect(await readFile(join(nodes, 'grind.md'), 'utf8')).toBe(grind.data.node_output);
  const lastBody = terminal(done.events, 'grind/body').at(-1);
  expect(lastBody.sessionId).toEqual(expect.any(String));
  expect(JSON.parse(await readFile(join(nodes, 'grind.meta.json'), 'utf8'))).toMatchObject({ outputType: 'draft', sessionId: lastBody.sessionId });
});

it('a loop with fresh_context: true starts each iteration in a new session', async () => {
  await start(everyOtherDone(), loopWorkflow(true));
  const done = await runToEnd();
  expect(done.run.status).toBe('completed');
  expect(requestsWith('polish the draft').every((t) => t.split('polish the draft').length - 1 === 1)).toBe(true);
  expect(terminal(done.events, 'grind/body').map((b: any) => b.binding.sessionOrigin)).toEqual(['fresh', 'fresh']);
});
