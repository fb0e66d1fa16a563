import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, sqliteStoreConfig } from '../src/store/open-store.js';
import { AgentActivity } from '../src/worker/nodes/agent/agent-activity.js';
import { ToolCallTally } from '../src/worker/nodes/agent/agent-records.js';
import { startAnthropicServer, type MessagesReply } from '../test/helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../test/helpers/claude-cli.js';
import { allEvents } from '../test/helpers/claude-workflow-run.js';
import { fanOutYaml } from '../test/helpers/workflows.js';
import { agentTask } from '../test/worker/providers/agent-harness.js';
import { runAgent } from '../src/worker/nodes/agent/agent.js';
import { claudeAdapter } from '../src/worker/providers/claude/adapter.js';
import { withSecretsMasked } from '../src/worker/providers/common/masking-adapter.js';
import { SecretMask } from '../src/shared/secret-mask.js';
import { addWorkflow, openSession, percentile, startTimedRun, timeRun, type Session } from './session.js';

/**
 * What live agent events cost (`npm run bench -- activity`). One AI node makes 1,000 tool calls:
 * the real Claude Code CLI (the pinned cli.js) against a scripted Messages API that answers with
 * `tool_use` blocks, 100 `Glob` calls per answer, then a final text. Measured:
 *
 * - the recorder alone (agent-activity.ts, the code a worker thread of the supervisor runs for
 *   each chunk) writing the events of 1,000 calls and their text into the run's real database,
 *   in this process: CPU per event written;
 * - the whole node on the server: the supervisor's CPU over the node, per activity event (an
 *   upper bound: it includes reading and parsing the CLI's stream and supervising its process);
 * - a 1,000-node bash fan-out's wall time alone, next to the same fan-out run while the node
 *   works (the CLI's own CPU competes for the 2 cores too), and while the recorder writes the
 *   node's events into the database as fast as it can (the events' share alone).
 */

const CALLS = 1_000;
const PER_ANSWER = 100;
const FAN_OUT = 1_000;
const REPEATS = 5;
/** How long the idle supervisor is watched. */
const IDLE_MS = 10_000;
/** Rounds of the in-process attempt, without and with the recorder. */
const ROUNDS = 2;
const activityTypes = new Set(['agent_text', 'agent_thinking', 'tool_called', 'tool_completed']);

export interface AgentActivityResult {
  calls: number;
  recorder: { events: number; cpuMsPerEvent: number; wallMs: number };
  /** The node's attempt run in this process as a worker thread runs it, without and with the recorder. */
  attempt: { events: number; offCpuMs: number; onCpuMs: number; cpuMsPerEvent: number };
  node: { events: number; wallMs: number; supervisorCpuMs: number; supervisorCpuMsPerEvent: number; idleCpuMsPerSec: number; busyCpuMsPerEvent: number; status: string };
  fanOut: { aloneMs: number; withNodeMs: number; withEventsMs: number; status: string[] };
}

/** The scripted agent: `PER_ANSWER` Glob calls per answer until `CALLS` results came back, then its answer. */
function reply(req: { body: any }): MessagesReply {
  const tools: string[] = (req.body?.tools ?? []).map((t: { name: string }) => t.name);
  const conversation = JSON.stringify(req.body?.messages ?? []);
  if (!conversation.includes('TOOLS-TASK') || !tools.includes('Glob')) return { kind: 'stream', blocks: [{ type: 'text', text: 'ok' }] };
  const done = conversation.split('"type":"tool_result"').length - 1;
  if (done >= CALLS) return { kind: 'stream', blocks: [{ type: 'text', text: `Made ${done} calls.` }] };
  const blocks = Array.from({ length: PER_ANSWER }, (_, k) => ({ type: 'tool_use' as const, id: `toolu_${done + k}`, name: 'Glob', input: { pattern: `no-such-${done + k}-*.txt` } }));
  return { kind: 'stream', blocks: [{ type: 'text', text: `Looking at batch ${done / PER_ANSWER}.` }, ...blocks] };
}

/** user + system CPU of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The node's attempt driven in this process the way a supervisor's worker thread drives it (the
 * real Claude adapter, its secret masking, the watchdogs), once with its chunks dropped and once
 * with the recorder writing them into `session`'s database: the difference in this process's CPU
 * is what the events cost the supervisor. Alternated `ROUNDS` times; the least of each is kept.
 */
async function attemptWithAndWithout(session: Session, runId: string, baseUrl: string, cliHome: string): Promise<AgentActivityResult['attempt']> {
  const store = openStore(sqliteStoreConfig(session.home.paths.database));
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-attempt-'));
  const cpu: Record<'off' | 'on', number[]> = { off: [], on: [] };
  let events = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const arm of ['off', 'on'] as const) {
        const task = agentTask(dir, {
          provider: 'claude', model: 'claude-sonnet-4-5', prompt: 'TOOLS-TASK: look for the files', runId, conversationId: 'bench-attempt', path: 'bench-attempt', nodeId: 'bench-attempt',
          connection: { binaryPath: pinnedClaudeCli, baseUrl, apiKey: 'sk-ant-test', env: claudeCliEnv(baseUrl, cliHome) },
        });
        const activity = new AgentActivity(task, store, new ToolCallTally());
        const adapter = withSecretsMasked(claudeAdapter, new SecretMask([]));
        const cpu0 = process.cpuUsage();
        const outcome = await runAgent(task, adapter, { signal: new AbortController().signal, onChunk: arm === 'on' ? (chunk) => activity.see(chunk) : () => undefined });
        await activity.close();
        const used = process.cpuUsage(cpu0);
        if (outcome.status !== 'completed') throw new Error(`the attempt ended ${outcome.status}: ${outcome.error}`);
        cpu[arm].push((used.user + used.system) / 1000);
        if (arm === 'on') events = activity.eventsWritten;
      }
    }
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  const offCpuMs = Math.min(...cpu.off);
  const onCpuMs = Math.min(...cpu.on);
  return { events, offCpuMs, onCpuMs, cpuMsPerEvent: (onCpuMs - offCpuMs) / events };
}

/** The recorder writing a node's 1,000 calls (and a text line before each batch) into the database of `session`, under `runId`. */
async function recordCalls(session: Session, runId: string, conversationId: string): Promise<{ events: number; cpuMs: number; wallMs: number }> {
  const spillDir = await mkdtemp(join(tmpdir(), 'cairn-bench-spill-'));
  const store = openStore(sqliteStoreConfig(session.home.paths.database));
  try {
    const task = { runId, conversationId, path: 'bench-recorder', nodeId: 'bench-recorder', provider: 'claude' as const, outputSpillDir: spillDir, attempt: { id: randomUUID(), number: 1 } };
    const activity = new AgentActivity(task, store, new ToolCallTally());
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) {
      if (i % PER_ANSWER === 0) for (const word of `Looking at batch ${i / PER_ANSWER}.`.split(' ')) activity.see({ type: 'text', text: `${word} ` });
      activity.see({ type: 'tool_call', id: `toolu_${i}`, name: 'Glob', input: { pattern: `no-such-${i}-*.txt` } });
      activity.see({ type: 'tool_result', id: `toolu_${i}`, output: 'No files found' });
      // As a stream does: chunks arrive over turns of the event loop, not all in one.
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
    }
    await activity.close();
    const cpu = process.cpuUsage(cpu0);
    return { events: activity.eventsWritten, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0 };
  } finally {
    await store.close();
    await rm(spillDir, { recursive: true, force: true });
  }
}

export async function agentActivity(): Promise<AgentActivityResult> {
  const messages = await startAnthropicServer(reply);
  const cliHome = await mkdtemp(join(tmpdir(), 'cairn-bench-claude-'));
  const session = await openSession({ ...claudeCliEnv(messages.url, cliHome), CLAUDE_BIN_PATH: pinnedClaudeCli });
  try {
    await addWorkflow(session, 'wide', fanOutYaml('wide', FAN_OUT, 'true'));
    await addWorkflow(session, 'tools', `name: tools\ndescription: one node, ${CALLS} tool calls\nprovider: claude\nmodel: claude-sonnet-4-5\nnodes:\n  - id: agent\n    prompt: "TOOLS-TASK: look for the files"\n`);
    const supervisor = await session.server.pid('supervisor');
    await timeRun(session, 'wide'); // warm-up: threads, statements, page cache

    // The supervisor's CPU when idle (heartbeats, the change watch), to take out of the node's.
    const idle0 = await cpuMs(supervisor);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleCpuMsPerSec = ((await cpuMs(supervisor)) - idle0) / (IDLE_MS / 1000);

    // The node alone: the supervisor's CPU over it, per activity event.
    const cpu0 = await cpuMs(supervisor);
    const alone = await timeRun(session, 'tools');
    const supervisorCpuMs = (await cpuMs(supervisor)) - cpu0;
    const nodeEvents = (await allEvents(session.server.url, alone.runId)).filter((e) => activityTypes.has(e.event_type)).length;

    // The recorder alone, into this database (after the node's run, under its id).
    const recorded = await recordCalls(session, alone.runId, 'bench-recorder');
    const attempt = await attemptWithAndWithout(session, alone.runId, messages.url, cliHome);

    const aloneMs: number[] = [];
    const withNodeMs: number[] = [];
    const withEventsMs: number[] = [];
    const statuses: string[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const plain = await timeRun(session, 'wide');
      aloneMs.push(plain.ms);
      statuses.push(plain.status);

      // With the node working: the fan-out starts once the node's first calls are made.
      const node = await startTimedRun(session, 'tools');
      await waitForToolEvents(session, node.runId);
      const busy = await timeRun(session, 'wide');
      withNodeMs.push(busy.ms);
      statuses.push(busy.status, (await node.finished()).status);

      // With the node's events alone, written as fast as the recorder can.
      const [withEvents] = await Promise.all([timeRun(session, 'wide'), recordCalls(session, alone.runId, 'bench-recorder')]);
      withEventsMs.push(withEvents.ms);
      statuses.push(withEvents.status);
    }
    return {
      calls: CALLS,
      recorder: { events: recorded.events, cpuMsPerEvent: recorded.cpuMs / recorded.events, wallMs: recorded.wallMs },
      attempt,
      node: {
        events: nodeEvents, wallMs: alone.ms, supervisorCpuMs, supervisorCpuMsPerEvent: supervisorCpuMs / nodeEvents, idleCpuMsPerSec,
        busyCpuMsPerEvent: (supervisorCpuMs - idleCpuMsPerSec * (alone.ms / 1000)) / nodeEvents, status: alone.status,
      },
      fanOut: { aloneMs: percentile(aloneMs, 50), withNodeMs: percentile(withNodeMs, 50), withEventsMs: percentile(withEventsMs, 50), status: [...new Set(statuses)] },
    };
  } finally {
    await session.close();
    await messages.close();
    await rm(cliHome, { recursive: true, force: true });
  }
}

async function waitForToolEvents(session: Session, runId: string): Promise<void> {
  for (;;) {
    const events = await allEvents(session.server.url, runId);
    if (events.some((e) => e.event_type === 'tool_completed')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function formatAgentActivityTable(r: AgentActivityResult): string {
  const f = (n: number, d = 2) => n.toFixed(d);
  const pct = (ms: number) => `${ms >= r.fanOut.aloneMs ? '+' : ''}${f(((ms - r.fanOut.aloneMs) / r.fanOut.aloneMs) * 100, 1)} %`;
  return [
    `## Live agent events: one node making ${r.calls} tool calls (Claude Code CLI, ${PER_ANSWER} calls per answer)\n`,
    '| measure | value |',
    '|---|---:|',
    `| recorder alone: events written for ${r.calls} calls | ${r.recorder.events} |`,
    `| recorder alone: CPU per event (build, batch, SQLite commit) | ${f(r.recorder.cpuMsPerEvent, 3)} ms |`,
    `| recorder alone: wall time for all of them | ${f(r.recorder.wallMs, 0)} ms |`,
    `| the attempt in-process (real adapter, CLI as a child): CPU without the recorder | ${f(r.attempt.offCpuMs, 0)} ms |`,
    `| the attempt in-process: CPU with the recorder (${r.attempt.events} events) | ${f(r.attempt.onCpuMs, 0)} ms |`,
    `| **the attempt in-process: CPU the events add, per event** | **${f(r.attempt.cpuMsPerEvent, 3)} ms** |`,
    `| node on the server: activity events | ${r.node.events} |`,
    `| node on the server: wall time | ${f(r.node.wallMs / 1000, 1)} s |`,
    `| node on the server: supervisor CPU per event, all of it (includes running the CLI and parsing its stream) | ${f(r.node.supervisorCpuMsPerEvent, 3)} ms |`,
    `| supervisor idle: CPU per second | ${f(r.node.idleCpuMsPerSec, 1)} ms |`,
    `| node on the server: supervisor CPU per event, idle CPU taken out | ${f(r.node.busyCpuMsPerEvent, 3)} ms |`,
    '',
    `| ${FAN_OUT}-node bash fan-out, median of ${REPEATS} | wall ms | vs alone |`,
    '|---|---:|---:|',
    `| alone | ${f(r.fanOut.aloneMs, 0)} | |`,
    `| while the node works (its CLI included) | ${f(r.fanOut.withNodeMs, 0)} | ${pct(r.fanOut.withNodeMs)} |`,
    `| while its events are written as fast as possible | ${f(r.fanOut.withEventsMs, 0)} | ${pct(r.fanOut.withEventsMs)} |`,
    '',
    `Runs ended: ${r.fanOut.status.join(', ')}; the node's run: ${r.node.status}.`,
    '',
  ].join('\n');
}
