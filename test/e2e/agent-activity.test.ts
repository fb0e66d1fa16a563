import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scriptedMessages, startAnthropicServer, type AnthropicServer, type Block } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { allEvents } from '../helpers/claude-workflow-run.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Agent work recorded while it happens (src/worker/nodes/agent/agent-activity.ts), through the
 * real adapters: the `anthropic` adapter against a scripted Messages API for text and thinking
 * (batched, capped, the rest in the attempt's activity file), and the real Claude Code CLI
 * playing a scripted agent for tool calls (tool, summary, result, duration), delivered on the
 * run's SSE stream before the node ends, and a node whose every call was refused.
 */

let home: TempHome;
let root: string;
let messages: AnthropicServer | undefined;
async function openHome(): Promise<void> {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-activity-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
}
async function closeHome(): Promise<void> {
  await home.close();
  await messages?.close();
  messages = undefined;
}

async function runToEnd(url: string, name: string, cwd: string) {
  const res = await fetch(`${url}/api/workflows/${name}/run?cwd=${encodeURIComponent(cwd)}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ conversationId: `conv-${name}` }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  const { runId } = (await res.json()) as { runId: string };
  await waitFor(async () => {
    const { run } = await getRun(url, runId);
    return ['completed', 'failed'].includes(run.status as string) ? run : undefined;
  }, { what: `run ${name} to end`, timeoutMs: 50_000 });
  return { runId, events: await allEvents(url, runId) };
}

const doc = (name: string) => readFileSync(fileURLToPath(new URL(`../../docs/${name}`, import.meta.url)), 'utf8');
/** The example events of docs/providers.md's section on what a node records while it runs. */
const providerExamples = [...doc('providers.md').matchAll(/^\{ "event_type": .*\}$/gm)].map((m) => JSON.parse(m[0]) as { event_type: string; data: Record<string, unknown> });
const keysOf = (value: object) => Object.keys(value).sort();

const textOf = (events: Record<string, any>[], type: string) => events.filter((e) => e.event_type === type).map((e) => e.data.text as string);

// One Messages server and one `cairn serve` for both tests: each sets what the model streams and
// runs a workflow (and so a conversation) of its own name.
describe('anthropic: text and thinking', () => {
  let blocks: Block[] = [];
  let shared: RunningServer;
  beforeAll(async () => {
    await openHome();
    messages = await startAnthropicServer(() => ({ kind: 'stream', blocks }));
    shared = await startServer(home, { ANTHROPIC_BASE_URL: messages.url, ANTHROPIC_API_KEY: 'sk-ant-test' });
  });
  afterAll(closeHome);

  /** The model streams `answer` from now on; the `name` workflow asks it once. */
  async function serve(name: string, answer: Block[]): Promise<RunningServer> {
    blocks = answer;
    await writeHomeWorkflow(home, name, `name: ${name}\ndescription: one answer\nprovider: anthropic\nmodel: claude-test\nnodes:\n  - id: answer\n    prompt: "say it"\n`);
    return shared;
  }

  it('writes the thinking and the text, coalesced into a few events rather than one per delta', async () => {
    const pieces = Array.from({ length: 60 }, (_, i) => `word${i} `);
    const server = await serve('says', [{ type: 'thinking', thinking: 'Let me think.' }, ...pieces.map((text): Block => ({ type: 'text', text }))]);
    const { events } = await runToEnd(server.url, 'says', root);
    expect(textOf(events, 'agent_thinking')).toEqual(['Let me think.']);
    const texts = textOf(events, 'agent_text');
    expect(texts.join('')).toBe(pieces.join(''));
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.length).toBeLessThan(pieces.length / 4);
    // The thinking came first, and all of it is before the node's end.
    const order = events.filter((e) => ['agent_thinking', 'agent_text', 'node_completed'].includes(e.event_type)).map((e) => e.event_type);
    expect(order[0]).toBe('agent_thinking');
    expect(order.at(-1)).toBe('node_completed');
    expect(events.find((e) => e.event_type === 'agent_text')!.data.node_id).toBe('answer');
  });

  it('caps each event at 4 KB and the node at 256 KB of text; the rest is in the activity file the event names', async () => {
    const pieces = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, '0')}${'x'.repeat(2_997)}`);
    const full = pieces.join('');
    const server = await serve('says-capped', pieces.map((text): Block => ({ type: 'text', text })));
    const { events } = await runToEnd(server.url, 'says-capped', root);
    const textEvents = events.filter((e) => e.event_type === 'agent_text');
    for (const event of textEvents) expect(event.data.text.length).toBeLessThanOrEqual(4 * 1024);
    const carried = textEvents.map((e) => e.data.text as string).join('');
    expect(carried.length).toBe(256 * 1024);
    expect(full.startsWith(carried)).toBe(true);
    const last = textEvents.at(-1)!;
    expect(last.data.persisted).toMatchObject({ truncated: true, spillPath: expect.stringMatching(/\.activity\.jsonl$/) });
    const spillPath = last.data.persisted.spillPath as string;
    expect(spillPath).toContain(join('.cairn', 'node-outputs'));
    const lines = (await readFile(spillPath, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.every((line) => line.event === 'agent_text' && line.field === 'text')).toBe(true);
    expect(carried + lines.map((line) => line.text).join('')).toBe(full);
    // docs/providers.md's example of a cut event has the fields of this one.
    const cutExample = providerExamples.find((e) => e.event_type === 'agent_text')!;
    expect(keysOf(cutExample.data)).toEqual(keysOf(last.data));
    expect(keysOf(cutExample.data.persisted as object)).toEqual(keysOf(last.data.persisted));
    // The node's output is its whole answer, as before.
    const record = events.find((e) => e.event_type === 'node_completed')!.data.execution;
    expect(record.output.persisted?.truncated ?? false).toBe(true);
  });
});

describe('claude CLI: tool calls', () => {
  // Its server runs the Claude Code CLI against a Messages server of its own.
  beforeEach(openHome);
  afterEach(closeHome);

  it('records each call with its tool, summary, result and duration, streams them before the node ends, and flags a node whose every call was refused', async () => {
    const scripted = scriptedMessages([
      { match: /WORK-TASK/, steps: [{ tool: 'write', path: 'notes.txt', content: 'from the agent\n' }, { tool: 'run', command: 'cat notes.txt' }, { tool: 'run', command: 'node -e "process.stdout.write(\\"y\\".repeat(5000))"' }, { say: 'worked' }] },
      { match: /LOOK-TASK/, steps: [{ tool: 'write', path: 'other.txt', content: 'not allowed\n' }, { tool: 'run', command: 'rm notes.txt' }, { say: 'looked' }] },
    ]);
    // The answer to the work node's first tool result waits for the test: the node is mid-work.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    messages = await startAnthropicServer((req, i) => {
      const reply = scripted.reply(req, i);
      const body = JSON.stringify(req.body?.messages ?? []);
      if (!held && body.includes('WORK-TASK') && body.includes('tool_result') && reply.kind === 'stream') {
        held = true;
        return { ...reply, heldUntil: released };
      }
      return reply;
    });
    const server = await startServer(home, { ...claudeCliEnv(messages.url, join(root, 'cli-home')), CLAUDE_BIN_PATH: pinnedClaudeCli });
    await writeHomeWorkflow(home, 'tools', `name: tools
description: a node that works, then a read-only one whose every call is refused
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: work
    prompt: "WORK-TASK: write notes.txt and show it"
  - id: look
    depends_on: [work]
    permissions: read_only
    prompt: "LOOK-TASK: change notes.txt"
`);
    const project = join(root, 'project');
    await mkdir(project);
    const sse = await openSse(`${server.url}/api/stream/conv-tools?lastEventId=0`);
    home.defer(() => sse.close());
    const res = await fetch(`${server.url}/api/workflows/tools/run?cwd=${encodeURIComponent(project)}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ conversationId: 'conv-tools' }),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const { runId } = (await res.json()) as { runId: string };

    const frameOf = (type: string, node: string) => (f: { data: Record<string, any> }) => f.data.eventType === type && (f.data.stepName ?? f.data.nodeId) === node;
    await sse.until((frames) => frames.some(frameOf('tool_completed', 'work')));
    // The node is still at work (its next answer is held), and its calls are on the stream.
    expect(sse.frames.some(frameOf('node_completed', 'work'))).toBe(false);
    const called = sse.frames.find(frameOf('tool_called', 'work'))!.data;
    expect(called).toMatchObject({ type: 'workflow_event', stepName: 'work', data: { node_id: 'work', tool_name: 'Write', summary: join(project, 'notes.txt') } });
    release();
    // docs/http-api.md's example frame is such a frame, field for field.
    const frameExample = /^data: (\{"type":"workflow_event".*"eventType":"tool_completed".*\})$/m.exec(doc('http-api.md'))![1]!;
    const docFrame = JSON.parse(frameExample);
    const liveFrame = sse.frames.find(frameOf('tool_completed', 'work'))!.data;
    expect(keysOf(docFrame)).toEqual(keysOf(liveFrame));
    expect(keysOf(docFrame.data)).toEqual(keysOf(liveFrame.data));

    await waitFor(async () => {
      const { run } = await getRun(server.url, runId);
      return ['completed', 'failed'].includes(run.status as string) ? run : undefined;
    }, { what: 'the run to end', timeoutMs: 50_000 });
    const events = await allEvents(server.url, runId);
    const completed = (node: string) => events.filter((e) => e.event_type === 'tool_completed' && e.step_name === node).map((e) => e.data);
    const work = completed('work');
    expect(work.map((d) => [d.tool_name, d.summary, d.is_error ?? false, d.refused ?? false])).toEqual([
      ['Write', join(project, 'notes.txt'), false, false],
      ['Bash', 'cat notes.txt', false, false],
      ['Bash', 'node -e "process.stdout.write(\\"y\\".repeat(5000))"', false, false],
    ]);
    // A long output is cut in its event, and kept whole in the attempt's activity file.
    const long = work[2];
    expect(long.output).toBe(`${'y'.repeat(2_000)}…`);
    expect(long.persisted).toMatchObject({ truncated: true, originalChars: 5_000 });
    const spilled = (await readFile(long.persisted.spillPath, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(spilled).toContainEqual(expect.objectContaining({ event: 'tool_completed', field: 'output', tool_name: 'Bash', tool_call_id: long.tool_call_id, text: 'y'.repeat(5_000) }));
    for (const d of work) expect(d.duration_ms).toEqual(expect.any(Number));
    expect(work[1].output).toContain('from the agent');
    // The call and its result share the id.
    expect(events.find((e) => e.event_type === 'tool_called' && e.step_name === 'work' && e.data.tool_name === 'Bash')!.data.tool_call_id).toBe(work[1].tool_call_id);

    // docs/providers.md's examples: the Bash call and its result, field for field.
    for (const example of providerExamples.filter((e) => e.event_type.startsWith('tool_'))) {
      const real = events.find((e) => e.event_type === example.event_type && e.step_name === 'work' && e.data.tool_name === example.data.tool_name)!;
      expect(keysOf(example.data), example.event_type).toEqual(keysOf(real.data));
      expect(real.data.summary).toBe(example.data.summary);
    }

    const look = completed('look');
    expect(look.map((d) => [d.tool_name, d.refused])).toEqual([['Write', true], ['Bash', true]]);
    const record = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'look')!.data.execution;
    expect(record.diagnostics.toolCalls).toMatchObject({ total: 2, refused: 2, failed: 0 });
    expect(textOf(events, 'agent_text').join('')).toContain('looked');
  });
});
